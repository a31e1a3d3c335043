"""gi.repository modules look missing to modulegraph; a runtime module lets the hook run."""


def pre_safe_import_module(api):  # type: ignore[no-untyped-def]
    api.add_runtime_module(api.module_name)

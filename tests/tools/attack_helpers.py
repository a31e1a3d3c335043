"""Shared pieces of the tool tests: the planted secret and how results and refusals are checked."""

from __future__ import annotations

import json

from tray_app.tools.toolbox import Toolbox

SECRET = "S3CR3T-7f1c9e-DO-NOT-LEAK"


def leaked(outputs: object) -> bool:
    """Whether SECRET is in any output; the echoed search query does not count."""

    def scrub(value: object) -> object:
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items() if k != "query"}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return SECRET in json.dumps(scrub(outputs))


def refused(result: dict) -> str:
    assert result["success"] is False, result
    return str(result["error"])


err = refused


def ok(result: dict) -> dict:
    assert result["success"] is True, result
    json.dumps(result)  # results must be JSON-able
    return result


def every_call(raw: str) -> list[tuple[str, dict]]:
    """One call of each file tool on ``raw``."""
    return [
        ("read_file", {"path": raw}),
        ("write_file", {"path": raw, "content": "pwned"}),
        ("list_directory", {"path": raw, "recursive": True, "include_hidden": True}),
        ("search_files", {"path": raw, "query": "a"}),
        ("create_directory", {"path": raw}),
        ("delete_file", {"path": raw, "recursive": True}),
        # the tools declared in their own modules, on the same paths
        ("edit_file", {"path": raw, "edits": [{"old_text": "a", "new_text": "pwned"}]}),
        ("move_file", {"source": raw, "destination": "moved-away"}),
        ("move_file", {"source": "bait.txt", "destination": raw, "overwrite": True}),
        ("read_multiple_files", {"paths": [raw]}),
        ("directory_tree", {"path": raw, "include_hidden": True}),
        ("get_file_info", {"path": raw}),
    ]


def assert_all_refused(box: Toolbox, raw: str) -> None:
    for name, args in every_call(raw):
        result = box.execute(name, args)
        assert result["success"] is False, (name, raw, result)
        preview = box.preview(name, args)
        assert preview["kind"] in ("error", "none"), (name, raw, preview)

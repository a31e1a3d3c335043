"""A failed turn's code comes from the one table in base/errors.py, narrowed to the codes the page
has an ``error.<code>`` text for."""

from __future__ import annotations

from tray_app.agent.loop import error_code
from tray_app.base.errors import (
    CapabilityError,
    LineTooLong,
    ModelNotFound,
    ProviderError,
    ProviderHTTPError,
    ProviderUnavailable,
    ServerBusy,
    StoreError,
    StreamError,
)


def test_each_error_has_the_failure_code_the_page_knows() -> None:
    assert [
        error_code(exc)
        for exc in (
            ProviderUnavailable("down"),
            ModelNotFound("no", model="m"),
            CapabilityError("no tools", capability="tools"),
            StreamError("cut"),
            LineTooLong("long"),
            ProviderHTTPError("500", status=500),
            ServerBusy("busy", status=503),
            ProviderError("other"),
            StoreError("disk"),
        )
    ] == [
        "provider_unavailable",
        "model_not_found",
        "capability",
        "stream_error",
        "stream_error",
        "provider_error",
        "provider_error",
        "provider_error",
        "store_error",
    ]

"""Arguments a model got wrong, as a coded failure: the first problem by its kind (missing, not
allowed, wrong type, not one of the choices, too long, out of range) so the card can say it in
the user's language; the model's sentence lists up to five problems in pydantic's words."""

from __future__ import annotations

from pydantic import ValidationError

from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.base import describe_validation_error
from tray_app.tools.result import ToolResult, failure

_TYPE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_parsing",
        "int_from_float",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
        "list_type",
        "tuple_type",
        "dict_type",
        "model_type",
        "model_attributes_type",
    }
)
_KINDS: dict[str, ToolErrorCode] = {
    "missing": "argument_missing",
    "extra_forbidden": "argument_unknown",
    "literal_error": "argument_not_a_choice",
    "enum": "argument_not_a_choice",
    "string_too_long": "argument_too_long",
    "too_long": "argument_too_long",
    "string_too_short": "argument_too_short",
    "too_short": "argument_too_short",
    "greater_than": "argument_out_of_range",
    "greater_than_equal": "argument_out_of_range",
    "less_than": "argument_out_of_range",
    "less_than_equal": "argument_out_of_range",
    **{kind: "argument_wrong_type" for kind in _TYPE_ERRORS},
}


def invalid_arguments(name: str, exc: ValidationError) -> ToolResult:
    """The failure for arguments the tool's model refused."""
    detail = describe_validation_error(exc)
    message = f"invalid arguments for {name}: {detail}"
    first = exc.errors()[0] if exc.error_count() else None
    code = _KINDS.get(str(first.get("type"))) if first is not None else None
    if first is None or code is None:
        params: dict[str, object] = {"tool": name, "detail": detail}
        return failure(message, code="invalid_arguments", params=params)
    field = ".".join(str(part) for part in first.get("loc", ())) or "arguments"
    context = first.get("ctx") or {}
    params = {"tool": name, "field": field}
    if code == "argument_not_a_choice":
        params["choices"] = str(context.get("expected", "")).replace(" or ", ", ")
    elif code in ("argument_too_long", "argument_too_short"):
        params["limit"] = context.get("max_length", context.get("min_length", ""))
    return failure(message, code=code, params=params)

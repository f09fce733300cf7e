"""The OpenAPI schema says every status an operation really answers (drf-spectacular hook).

Each view documents its own successes and domain refusals (``ERRORS`` in each package's ``api.py``). The
answers every operation shares come from the framework, not from the view, so they are added here
in one place, each with the one error body ``{code, detail[, field, errors]}`` (``web.common.errors``):

* 401: no or bad credentials (every operation needs a login);
* 403: the role lacks the permission;
* 404: an operation with a path parameter: nothing has that id, or the id isn't one;
* 400: an operation that reads query parameters or a body: they can be invalid.

``tests/web/test_api_fuzz.py`` holds the schema to it: every status answered to generated requests
is documented, and every body matches its documented schema.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}
SHARED = {
    "400": "Invalid input: the body or a query parameter (the field is named)",
    "401": "Not logged in (or bad credentials)",
    "403": "Your role does not allow this",
    "404": "No such object (or an id that can't be one)",
}
METHODS = {"get", "post", "put", "patch", "delete"}


def document_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Add the shared error statuses each operation can answer and doesn't document yet."""
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            codes = {"401", "403"}
            parameters = operation.get("parameters", [])
            if "{" in path:
                codes.add("404")
            if "requestBody" in operation or any(p.get("in") == "query" for p in parameters):
                codes.add("400")
            responses = operation.setdefault("responses", {})
            for code in sorted(codes - set(responses)):
                responses[code] = {
                    "content": {"application/json": {"schema": ERROR_SCHEMA}},
                    "description": SHARED[code],
                }
    return result

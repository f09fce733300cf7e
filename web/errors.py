"""Domain errors as HTTP responses: the one mapping of every API view
(``REST_FRAMEWORK["EXCEPTION_HANDLER"]``).

A :class:`casino.core.errors.DomainError` (the floor's, the ledger's, the report records' and the
reports' filters' refusals) answers with its own ``status`` and the body ``error.as_dict()``:
``{"code", "detail"[, "field"]}`` (a bad report filter adds ``errors``, by field). A row the
database protects (``ProtectedError``: referenced by history) is the floor's ``in_use`` conflict
(409). DRF's own errors keep DRF's status and headers (401/403 authentication and permission,
404, 405, 415, 429) and get the same documented body: ``{"code", "detail"}`` with DRF's code
(``not_authenticated``, ``permission_denied``, ``not_found``, ``method_not_allowed``,
``parse_error``...); a serializer's validation error (400) is ``{"code": "invalid", "detail":
"<field>: <message>", "field", "errors": {field: message}}``, the shape of a domain validation
error, instead of DRF's ``{field: [messages]}``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import ProtectedError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from casino.core.errors import DomainError
from tables.errors import InUse

PROTECTED_MESSAGE = "It is referenced by history and can't be deleted."


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler for the whole API: domain errors first, then DRF's default."""
    if isinstance(exc, ProtectedError):
        exc = InUse(PROTECTED_MESSAGE)
    if isinstance(exc, DomainError):
        set_rollback()
        return Response(exc.as_dict(), status=exc.status)
    response = exception_handler(exc, context)
    if response is not None:
        response.data = (
            _validation_body(response.data) if isinstance(exc, ValidationError) else _body(response.data)
        )
    return response


def _body(data: Any) -> dict[str, Any]:
    detail = data.get("detail", data) if isinstance(data, dict) else data
    return {"code": str(getattr(detail, "code", None) or "error"), "detail": str(detail)}


def _validation_body(data: Any) -> dict[str, Any]:
    errors = dict(_messages(data))
    field, message = next(iter(errors.items()), ("non_field_errors", "Invalid input."))
    if field == "non_field_errors":
        return {"code": "invalid", "detail": message, "errors": errors}
    return {"code": "invalid", "detail": f"{field}: {message}", "field": field, "errors": errors}


def _messages(data: Any, prefix: str = "") -> list[tuple[str, str]]:
    """DRF's nested ``{field: [messages]}`` (lists of such for ``many``) as ``(field path, "a; b")``
    pairs: ``players[1].seat``."""
    if isinstance(data, dict):
        found: list[tuple[str, str]] = []
        for key, value in data.items():
            # DRF keys a list field's items by their index ("0"): written as the domain writes
            # them, rates[0].fee_cents.
            name = f"{prefix}[{key}]" if str(key).isdigit() else f"{prefix}.{key}" if prefix else str(key)
            found += _messages(value, name)
        return found
    if isinstance(data, list) and any(isinstance(item, dict | list) for item in data):
        found = []
        for index, item in enumerate(data):
            found += _messages(item, f"{prefix}[{index}]")
        return found
    texts = [str(item) for item in data] if isinstance(data, list) else [str(data)]
    return [(prefix or "non_field_errors", "; ".join(t for t in texts if t))] if any(texts) else []


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: a path that is no route (``/api/terminal/hands/abc/``: every id route takes
    digits only) answers the API's documented body under ``/api/``, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "detail": "No such resource."}, status=404)
    return page_not_found(request, exception or Exception("not found"))

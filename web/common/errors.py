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
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.urls import reverse
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import page_not_found
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from casino.core.errors import DomainError
from tables import roles
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


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: a request Django refuses before any view (a multipart body without its
    boundary, too many fields, a body too large: read first by ``web.common.middleware``) answers the
    API's documented body under ``/api/``, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        if isinstance(exception, MultiPartParserError):
            body = {"code": "parse_error", "detail": f"The request body can't be read: {exception}."}
        else:
            body = {"code": "bad_request", "detail": "The request can't be read."}
        return JsonResponse(body, status=400)
    return django_bad_request(request, exception or Exception("bad request"))


#: What each role may do and its pages (url names), as :mod:`tables.roles` grants them: the 403
#: page tells the signed-in user what they can do instead.
ROLE_PAGES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    roles.DEALER: (
        "views the floor, runs hands at the dealer terminal and sells chips (buy-ins and rebuys); "
        "changes no configuration and cashes nobody out",
        [("Floor", "tables:home")],
    ),
    roles.CAGE: (
        "views the floor, sells chips and cashes players out; runs no hands and seats nobody",
        [("Floor", "tables:home")],
    ),
    roles.FLOOR_MANAGER: (
        "everything a dealer can, plus opening and closing tables, seating, moving and cashing out "
        "players, collection schedules, drop counts and the reports",
        [("Floor", "tables:home"), ("Schedules", "tables:schedules"), ("Reports", "reports:index")],
    ),
    roles.AUDITOR: (
        "views every table, hand, record and report; changes nothing",
        [("Floor", "tables:home"), ("Schedules", "tables:schedules"), ("Reports", "reports:index")],
    ),
}


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler403``: the API's documented body under ``/api/``; elsewhere ``403.html``, naming
    the signed-in user's roles, what each may do, and links to their pages."""
    reason = str(exception) if exception is not None and str(exception) else ""
    if request.path.startswith("/api/"):
        detail = reason or "You do not have permission to perform this action."
        return JsonResponse({"code": "permission_denied", "detail": detail}, status=403)
    user = request.user
    names = set(user.groups.values_list("name", flat=True)) if user.is_authenticated else set()
    role_rows = [
        {"name": name, "may": may, "links": [(label, reverse(url)) for label, url in links]}
        for name, (may, links) in ROLE_PAGES.items()
        if name in names
    ]
    context = {"reason": reason, "roles": role_rows, "is_superuser": getattr(user, "is_superuser", False)}
    return render(request, "403.html", context, status=403)

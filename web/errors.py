"""Domain errors as HTTP responses: the one mapping of every API view
(``REST_FRAMEWORK["EXCEPTION_HANDLER"]``).

A :class:`casino.core.errors.DomainError` (the floor's, the ledger's, the report records' and the
reports' filters' refusals) answers with its own ``status`` and the body ``error.as_dict()``:
``{"code", "detail"[, "field"]}`` (a bad report filter adds ``errors``, by field). A row the
database protects (``ProtectedError``: referenced by history) is the floor's ``in_use`` conflict
(409). Everything else (DRF's own errors: validation, authentication, permission, not found,
method, throttling) is DRF's default handler's, unchanged.
"""

from __future__ import annotations

from typing import Any

from django.db.models import ProtectedError
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
    return exception_handler(exc, context)

"""Per-user rate limits of the heavy requests, one counter for the API and the pages
(docs/reports.md, "Bounded work").

Three scopes, their rates in ``settings.HEAVY_REQUEST_RATES`` (``"60/minute"``, DRF's notation):

* ``reports``: a report built now (a report page, ``/api/ledger/reports/...``);
* ``exports``: an export requested (the exports form, ``POST /api/ledger/exports/``, a page's PDF
  or big CSV queued);
* ``downloads``: a file served (an export's, a page's inline CSV, a shift close's sealed zip).

:class:`HeavyRequestThrottle` is DRF's ``ScopedRateThrottle`` (the view's ``throttle_scope``), its
history in Django's default cache, keyed by the account; :func:`page_throttled` applies the same
throttle, and so the same counter, to a page. Too many: the API answers 429 with the documented
error body (``web.common.errors``: ``{"code": "throttled", "detail"}``) and ``Retry-After``; a page, 429
with the same words.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.throttling import ScopedRateThrottle

REPORTS = "reports"
EXPORTS = "exports"
DOWNLOADS = "downloads"
SCOPES = (REPORTS, EXPORTS, DOWNLOADS)


class HeavyRequestThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle`` with its rates read from ``settings.HEAVY_REQUEST_RATES`` when asked
    (not once at import), keyed by the account: its id and when it was made, so that an id a
    database hands out again (SQLite reuses a deleted row's) never inherits another account's
    count. A scope without a rate isn't limited."""

    def get_rate(self) -> str | None:
        return dict(getattr(settings, "HEAVY_REQUEST_RATES", {})).get(self.scope)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            joined = getattr(user, "date_joined", None)
            ident = f"{user.pk}.{joined.timestamp() if joined is not None else ''}"
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class _Scoped:
    """What ``ScopedRateThrottle`` reads of a view: its scope."""

    def __init__(self, scope: str) -> None:
        self.throttle_scope = scope


def page_throttled(request: HttpRequest, scope: str) -> HttpResponse | None:
    """Count a page's heavy request against ``request.user``'s ``scope``: ``None`` when allowed, else
    the 429 page (with ``Retry-After``) to answer instead."""
    throttle = HeavyRequestThrottle()
    # DRF's throttle reads only ``user`` and ``META`` of the request and ``throttle_scope`` of the
    # view: a Django request and :class:`_Scoped` are all it needs.
    drf_request: Any = request
    view: Any = _Scoped(scope)
    if throttle.allow_request(drf_request, view):
        return None
    wait = throttle.wait()
    seconds = max(int(wait + 0.999), 1) if wait is not None else 60
    response = render(request, "reports/throttled.html", {"seconds": seconds, "scope": scope}, status=429)
    response["Retry-After"] = str(seconds)
    return response

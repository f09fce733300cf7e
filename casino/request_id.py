"""Request ids: one id per HTTP request, in its response and in every log record made while it runs.

``RequestIdMiddleware`` (first in ``MIDDLEWARE``) takes the id from the request's ``X-Request-ID``
header when it is a plausible id (what a proxy such as nginx's ``$request_id`` or a load balancer
sends: up to :data:`MAX_LENGTH` characters of letters, digits and ``._:=+/-``), and otherwise makes
one (32 hex digits). It is kept in a context variable for the request's duration (each thread of a
threaded server has its own), set on ``request.request_id``, and sent back as the response's
``X-Request-ID``. ``RequestIdLogFilter`` (on the console handler in ``settings.LOGGING``) puts it on
every record as ``record.request_id``: ``"-"`` outside a request (a Celery task, a command).

An id sent by the client is never trusted for anything but correlating logs; one that is not
plausible (too long, or with spaces, quotes or control characters that could forge a log line) is
replaced, not refused.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
MAX_LENGTH = 128
NONE = "-"
"""The id on records made outside a request."""

_PLAUSIBLE = re.compile(rf"[A-Za-z0-9._:=+/-]{{1,{MAX_LENGTH}}}")
_current: ContextVar[str] = ContextVar("request_id", default=NONE)


def current_request_id() -> str:
    """The id of the request being served in this thread (or task), ``"-"`` outside one."""
    return _current.get()


def request_id_for(header: str | None) -> str:
    """``header`` when it is a plausible id, else a new one (32 lowercase hex digits)."""
    if header is not None and _PLAUSIBLE.fullmatch(header):
        return header
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Takes or makes the request's id, holds it while the request is served, returns it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_for(request.headers.get(HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdLogFilter(logging.Filter):
    """Adds ``request_id`` to every record (keeps one already set); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current.get()
        return True

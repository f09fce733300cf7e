"""Requests refused before any view: a body larger than the site takes, a NUL character in the
path, the query string or a form.

A body is refused (413) from its ``Content-Length`` alone, before anything reads it
(:class:`BodyLimitMiddleware`): an anonymous 50 MB multipart POST to ``/healthz`` was read in full
(its file spooled to disk) by the NUL check below, before any login or view could refuse it. No
request of this site comes near ``settings.REQUEST_BODY_MAX_BYTES`` (no page or API takes a file;
the largest JSON, a showdown or a schedule's rates, is a few kilobytes). A body without a length
(``Transfer-Encoding: chunked``) is read by Django as empty, so it is never read either; the proxy
in front (docs/deployment.md, ``client_max_body_size``) refuses the same bodies first.

PostgreSQL text columns can't hold NUL (``\\x00``): a lookup or a filter with one raised a
``DataError`` (500) at the first query, e.g. ``/api/players/?search=a%00b``. No name, code or
number of this site contains it, so a request that carries one is refused with a 400 in one place,
whatever view it was for. (JSON bodies are checked by :mod:`web.common.parsers`.)
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL = "\x00"
MESSAGE = "The request may not contain the NUL character."


class BodyLimitMiddleware:
    """413 for a request whose ``Content-Length`` is over ``settings.REQUEST_BODY_MAX_BYTES``, its
    body unread; first of the middleware that may read one (the NUL check, CSRF's)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        cap: int = settings.REQUEST_BODY_MAX_BYTES
        if _content_length(request) > cap:
            message = f"The request body is too large: this site takes at most {cap} bytes."
            if request.path.startswith("/api/"):
                return JsonResponse({"code": "too_large", "detail": message}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _content_length(request: HttpRequest) -> int:
    """The body's declared length; 0 when there is none or it is no number (Django then reads no
    body at all)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class RefuseNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path or _has_nul(request):
            if request.path.startswith("/api/"):
                return JsonResponse({"code": "invalid", "detail": MESSAGE}, status=400)
            return HttpResponseBadRequest(MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _has_nul(request: HttpRequest) -> bool:
    if any(NUL in key or any(NUL in v for v in values) for key, values in request.GET.lists()):
        return True
    if request.method == "POST" and request.content_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        return any(NUL in key or any(NUL in v for v in values) for key, values in request.POST.lists())
    return False

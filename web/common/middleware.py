"""Requests refused before any view: a NUL character in the path, the query string or a form.

PostgreSQL text columns can't hold NUL (``\\x00``): a lookup or a filter with one raised a
``DataError`` (500) at the first query, e.g. ``/api/players/?search=a%00b``. No name, code or
number of this site contains it, so a request that carries one is refused with a 400 in one place,
whatever view it was for. (JSON bodies are checked by :mod:`web.common.parsers`.)
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL = "\x00"
MESSAGE = "The request may not contain the NUL character."


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

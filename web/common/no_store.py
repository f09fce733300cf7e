"""``Cache-Control: no-store`` on every answer of a view, a page or the API: what a browser's or a
proxy's cache must not keep (reports, players' identification numbers and contact details, cash per
gaming day). Both mixins mark the answer as Django's ``never_cache`` does
(``add_never_cache_headers``: ``max-age=0, no-cache, no-store, must-revalidate, private``), whatever
it is: a page, a refusal, a download, an error."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import add_never_cache_headers
from django.views import View
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class NoStoreMixin(APIView):
    """An API view (DRF) whose every answer is marked ``Cache-Control: no-store``."""

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        add_never_cache_headers(response)
        return response


class NoStorePageMixin(View):
    """A page (a Django view) whose every answer is marked ``Cache-Control: no-store``."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = super().dispatch(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

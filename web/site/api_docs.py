"""The API's documentation pages (Swagger UI at ``/api/docs/``, Redoc at ``/api/redoc/``) under the
Content-Security-Policy.

Both are third-party pages that inline their styles (Swagger UI's page a ``<style>`` block, Redoc its
styled components), so they relax ``style-src`` alone to allow inline styles; scripts still come only
from the site: Swagger UI's start-up script is served from the site too (drf-spectacular's split view)
rather than inlined. Every other page keeps the site-wide policy (``SECURE_CSP``).
"""

from __future__ import annotations

from collections.abc import Collection

from django.conf import settings
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

DOCS_CSP: dict[str, Collection[str] | str] = {
    **settings.SECURE_CSP,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
}

swagger_ui = csp_override(DOCS_CSP)(SpectacularSwaggerSplitView.as_view(url_name="schema"))
redoc = csp_override(DOCS_CSP)(SpectacularRedocView.as_view(url_name="schema"))

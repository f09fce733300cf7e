from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from web.board import urls as board_urls
from web.floor import urls as floor_urls
from web.lists import urls as lists_urls
from web.players import urls as players_urls
from web.site import api_docs
from web.site.health import healthz
from web.terminal import urls as terminal_urls

# The floor's rooms share the ``tables`` namespace of their pages and the one ``/api/`` router.
floor_pages = [
    *floor_urls.urlpatterns,
    *terminal_urls.urlpatterns,
    *players_urls.urlpatterns,
    *lists_urls.urlpatterns,
    *board_urls.urlpatterns,
]
router = DefaultRouter()
for prefix, viewset, basename in (
    *floor_urls.api_routes,
    *players_urls.api_routes,
    *terminal_urls.api_routes,
    *lists_urls.api_routes,
):
    router.register(prefix, viewset, basename=basename)

urlpatterns = [
    # For load balancers and systemd: no login (docs/deployment.md, "Health").
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Log in, log out, change one's password; no password reset by e-mail (web/accounts/urls.py).
    path("accounts/", include("web.accounts.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Third-party pages with inline styles: they relax the Content-Security-Policy's style-src alone.
    path("api/docs/", api_docs.swagger_ui, name="api-docs"),
    path("api/redoc/", api_docs.redoc, name="api-redoc"),
    path("api/ledger/", include("web.reports.api_urls")),
    path("api/", include([*router.urls, *lists_urls.api_urlpatterns])),
    path("reports/", include("web.reports.urls")),
    path("", include((floor_pages, "tables"))),
]

# The API's 404 for a path that is no route has the API's documented error body (web/common/errors.py).
handler400 = "web.common.errors.bad_request"
handler403 = "web.common.errors.permission_denied"
handler404 = "web.common.errors.not_found"

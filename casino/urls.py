from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from web import api_docs
from web.health import healthz

urlpatterns = [
    # For load balancers and systemd: no login (docs/deployment.md, "Health").
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Log in, log out, change one's password; no password reset by e-mail (web/account_urls.py).
    path("accounts/", include("web.account_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Third-party pages with inline styles: they relax the Content-Security-Policy's style-src alone.
    path("api/docs/", api_docs.swagger_ui, name="api-docs"),
    path("api/redoc/", api_docs.redoc, name="api-redoc"),
    path("api/ledger/", include("web.ledger_api_urls")),
    path("api/", include("web.floor_api_urls")),
    path("reports/", include("web.ledger_urls")),
    path("", include("web.floor_urls")),
]

# The API's 404 for a path that is no route has the API's documented error body (web/common/errors.py).
handler400 = "web.common.errors.bad_request"
handler403 = "web.common.errors.permission_denied"
handler404 = "web.common.errors.not_found"

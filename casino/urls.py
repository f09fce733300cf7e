from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from web.health import healthz

urlpatterns = [
    # For load balancers and systemd: no login (docs/deployment.md, "Health").
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("api/ledger/", include("web.ledger_api_urls")),
    path("api/", include("web.floor_api_urls")),
    path("reports/", include("web.ledger_urls")),
    path("", include("web.floor_urls")),
]

# The API's 404 for a path that is no route has the API's documented error body (web/errors.py).
handler404 = "web.errors.not_found"

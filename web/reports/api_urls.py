"""``/api/ledger/`` routes (included from casino/urls.py)."""

from rest_framework.routers import DefaultRouter

from web.reports import api

router = DefaultRouter()
router.register("reports", api.ReportViewSet, basename="ledger-report")
router.register("exports", api.ReportExportViewSet, basename="ledger-export")
router.register("drop-counts", api.DropCountViewSet, basename="ledger-drop-count")
router.register("fee-waivers", api.FeeWaiverViewSet, basename="ledger-fee-waiver")
router.register("shift-closes", api.ShiftCloseViewSet, basename="ledger-shift-close")
router.register("integrity-checks", api.IntegrityCheckViewSet, basename="ledger-integrity-check")

urlpatterns = router.urls

"""Report pages (included from casino/urls.py under ``reports/``)."""

from django.urls import path

from web.reports import access_log, views

app_name = "reports"

urlpatterns = [
    path("", views.IndexView.as_view(), name="index"),
    path("collection/", views.CollectionView.as_view(), name="collection"),
    path("hands/", views.HandHistoryView.as_view(), name="hands"),
    path("hands/<int:hand_id>/", views.HandView.as_view(), name="hand"),
    path("downs/", views.DownsView.as_view(), name="downs"),
    path("players/", views.PlayerSearchView.as_view(), name="players"),
    path("players/<int:player_id>/", views.PlayerStatementView.as_view(), name="statement"),
    path("journal/", views.JournalView.as_view(), name="journal"),
    path("integrity/", views.IntegrityView.as_view(), name="integrity"),
    path("drops/", views.DropVarianceView.as_view(), name="drops"),
    path("drops/new/", views.DropCountCreateView.as_view(), name="drop-new"),
    path("drops/<int:pk>/correct/", views.DropCountCorrectView.as_view(), name="drop-correct"),
    path("drops/<int:pk>/sign-off/", views.SignOffView.as_view(), name="drop-sign-off"),
    path("waivers/new/", views.WaiverCreateView.as_view(), name="waiver-new"),
    path("changes/", views.ChangeLogView.as_view(), name="changes"),
    path("access/", access_log.AccessLogView.as_view(), name="access"),
    path("shifts/", views.ShiftCloseListView.as_view(), name="shifts"),
    path("shifts/<int:pk>/", views.ShiftCloseDetailView.as_view(), name="shift"),
    path("exports/", views.ExportListView.as_view(), name="exports"),
    path("exports/<int:pk>/download/", views.ExportDownloadView.as_view(), name="export-download"),
]

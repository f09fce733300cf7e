"""The waiting lists' routes (docs/waiting-lists.md): their pages (in the ``tables`` namespace)
and their API's (included from casino/urls.py)."""

from django.urls import path
from rest_framework.viewsets import ViewSetMixin

from web.lists import api, views

urlpatterns = [
    path("floor/lists/", views.ListsView.as_view(), name="lists"),
    path("floor/lists/calls/", views.CallsPanelView.as_view(), name="list-calls"),
    path("floor/lists/settings/", views.ListSettingsView.as_view(), name="list-settings"),
    path("floor/lists/report/", views.ListReportView.as_view(), name="list-report"),
]

#: ``/api/`` routes: the waiting lists, seat offers and must-move tables.
api_routes: list[tuple[str, type[ViewSetMixin], str]] = [
    ("waiting-lists", api.WaitingListViewSet, "waiting-list"),
    ("waiting-list-entries", api.WaitingListEntryViewSet, "waiting-list-entry"),
    ("waiting-list-events", api.WaitingListEventViewSet, "waiting-list-event"),
    ("must-moves", api.MustMoveViewSet, "must-move"),
]

#: ``/api/`` routes outside the router.
api_urlpatterns = [
    path(
        "waiting-list-settings/",
        api.WaitingListSettingsViewSet.as_view({"get": "show", "post": "change"}),
        name="waiting-list-settings",
    ),
]

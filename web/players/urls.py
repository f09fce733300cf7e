"""The players' routes: their pages (in the ``tables`` namespace) and their API's (included from
casino/urls.py)."""

from django.urls import path
from rest_framework.viewsets import ViewSetMixin

from web.players import api, views

urlpatterns = [
    path("floor/players/", views.PlayerListView.as_view(), name="players"),
    path("floor/players/search/", views.PlayerSearchView.as_view(), name="player-search"),
    path("floor/players/new/", views.PlayerCreateView.as_view(), name="player-new"),
    path("floor/players/<int:pk>/", views.PlayerDetailView.as_view(), name="player"),
    path("floor/cash-day/", views.CashDayView.as_view(), name="cash-day"),
]

#: ``/api/`` routes: (prefix, view set, basename).
api_routes: list[tuple[str, type[ViewSetMixin], str]] = [
    ("players", api.PlayerViewSet, "player"),
    ("identifications", api.IdentificationViewSet, "identification"),
    ("cash-day", api.CashDayViewSet, "cash-day"),
]

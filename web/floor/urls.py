"""The floor's routes: its pages (in the ``tables`` namespace) and its API's (included from
casino/urls.py, which puts every room's under one router)."""

from django.urls import path
from rest_framework.viewsets import ViewSetMixin

from web.floor import api
from web.floor import views as floor_views
from web.floor.home import HomeView
from web.floor.table_setup import TableCreateView, TableSetupView

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    path("floor/tables/new/", TableCreateView.as_view(), name="table-new"),
    path("floor/tables/<int:number>/", floor_views.ManageTableView.as_view(), name="manage"),
    path("floor/tables/<int:number>/setup/", TableSetupView.as_view(), name="table-setup"),
    path("floor/schedules/", floor_views.ScheduleListView.as_view(), name="schedules"),
    path("floor/schedules/<str:code>/", floor_views.ScheduleView.as_view(), name="schedule"),
]

#: ``/api/`` routes: (prefix, view set, basename).
api_routes: list[tuple[str, type[ViewSetMixin], str]] = [
    ("games", api.GameViewSet, "game"),
    ("stakes", api.StakesViewSet, "stakes"),
    ("schedules", api.CollectionScheduleViewSet, "schedule"),
    ("tables", api.TableViewSet, "table"),
    ("seats", api.SeatViewSet, "seat"),
    ("seatings", api.SeatingViewSet, "seating"),
    ("hands", api.HandViewSet, "hand"),
    ("config-changes", api.ConfigChangeViewSet, "configchange"),
]

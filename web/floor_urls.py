"""Page routes of the floor (included from casino/urls.py)."""

from django.urls import path

from web import board_views, floor_views, player_views, table_setup_views, waiting_list_views
from web.home_views import HomeView
from web.terminal import views as terminal_views

app_name = "tables"

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    # the dealer terminal
    path("tables/<int:number>/", terminal_views.TerminalView.as_view(), name="terminal"),
    path("tables/<int:number>/start/", terminal_views.StartHandView.as_view(), name="start-hand"),
    path("tables/<int:number>/clock/", terminal_views.ClockView.as_view(), name="clock"),
    path("hands/<int:pk>/sweep/", terminal_views.DeclareSweepView.as_view(), name="declare-sweep"),
    path("hands/<int:pk>/showdown/", terminal_views.ShowdownView.as_view(), name="showdown"),
    path("hands/<int:pk>/confirm/", terminal_views.ConfirmView.as_view(), name="confirm"),
    path("hands/<int:pk>/misdeal/", terminal_views.MisdealView.as_view(), name="misdeal"),
    # the floor manager
    path("floor/tables/new/", table_setup_views.TableCreateView.as_view(), name="table-new"),
    path("floor/tables/<int:number>/", floor_views.ManageTableView.as_view(), name="manage"),
    path("floor/tables/<int:number>/setup/", table_setup_views.TableSetupView.as_view(), name="table-setup"),
    path("floor/players/", player_views.PlayerListView.as_view(), name="players"),
    path("floor/players/search/", player_views.PlayerSearchView.as_view(), name="player-search"),
    path("floor/players/new/", player_views.PlayerCreateView.as_view(), name="player-new"),
    path("floor/players/<int:pk>/", player_views.PlayerDetailView.as_view(), name="player"),
    path("floor/cash-day/", player_views.CashDayView.as_view(), name="cash-day"),
    path("floor/schedules/", floor_views.ScheduleListView.as_view(), name="schedules"),
    path("floor/schedules/<str:code>/", floor_views.ScheduleView.as_view(), name="schedule"),
    # the waiting lists and the room's public board (docs/waiting-lists.md)
    path("floor/lists/", waiting_list_views.ListsView.as_view(), name="lists"),
    path("floor/lists/calls/", waiting_list_views.CallsPanelView.as_view(), name="list-calls"),
    path("floor/lists/settings/", waiting_list_views.ListSettingsView.as_view(), name="list-settings"),
    path("floor/lists/report/", waiting_list_views.ListReportView.as_view(), name="list-report"),
    path("board/", board_views.BoardView.as_view(), name="board"),
    path("board/panel/", board_views.BoardPanelView.as_view(), name="board-panel"),
]

"""``/api/`` routes of the floor (included from casino/urls.py)."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from web import floor_api as api
from web import player_api, waiting_list_api
from web.terminal import api as terminal_api

router = DefaultRouter()
router.register("games", api.GameViewSet, basename="game")
router.register("stakes", api.StakesViewSet, basename="stakes")
router.register("schedules", api.CollectionScheduleViewSet, basename="schedule")
router.register("tables", api.TableViewSet, basename="table")
router.register("seats", api.SeatViewSet, basename="seat")
router.register("players", player_api.PlayerViewSet, basename="player")
router.register("identifications", player_api.IdentificationViewSet, basename="identification")
router.register("cash-day", player_api.CashDayViewSet, basename="cash-day")
router.register("seatings", api.SeatingViewSet, basename="seating")
router.register("hands", api.HandViewSet, basename="hand")
router.register("config-changes", api.ConfigChangeViewSet, basename="configchange")
# The dealer terminals: chips, fees, hands and their money (handflow.services).
router.register("terminal/tables", terminal_api.TerminalTableViewSet, basename="terminal-table")
router.register("terminal/hands", terminal_api.TerminalHandViewSet, basename="terminal-hand")
# The waiting lists, seat offers and must-move tables (docs/waiting-lists.md).
router.register("waiting-lists", waiting_list_api.WaitingListViewSet, basename="waiting-list")
router.register(
    "waiting-list-entries", waiting_list_api.WaitingListEntryViewSet, basename="waiting-list-entry"
)
router.register(
    "waiting-list-events", waiting_list_api.WaitingListEventViewSet, basename="waiting-list-event"
)
router.register("must-moves", waiting_list_api.MustMoveViewSet, basename="must-move")

urlpatterns = [
    *router.urls,
    path(
        "waiting-list-settings/",
        waiting_list_api.WaitingListSettingsViewSet.as_view({"get": "show", "post": "change"}),
        name="waiting-list-settings",
    ),
]

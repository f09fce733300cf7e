"""The waiting lists' day report (``tables.lists.selectors.day_report``, the page
``/floor/lists/report/``) names each player as they were named at the event, like every other
report (``tables.player_names``): a rename later in the day, or any day after, doesn't rewrite
what the floor did under the old name; and the names cost one query, whatever the events."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tables import services as floor_services
from tables.lists import services
from tables.lists.selectors import day_report
from tables.models import ListEvent, Player, WaitingList

pytestmark = pytest.mark.django_db


def test_each_event_names_the_player_as_they_were_then(
    holdem_list: WaitingList, users: dict[str, Any]
) -> None:
    floor = users["floor"]
    services.add_player(waiting_lists=[holdem_list], new_player_name="Bo First", by=floor)
    ann = Player.objects.create(name="Ann Lee")
    (entry,) = services.add_player(waiting_lists=[holdem_list], player=ann, by=floor)
    floor_services.update_player(player=ann, name="Ann Soto", by=floor)
    services.move_on_list(entry=entry, position=1, by=floor, reason="asked again at the desk")
    services.remove_from_list(entry=entry, by=floor, reason="left the room")

    report = day_report(timezone.localdate())

    assert [(line.record.event, line.player_name) for line in report.lines] == [
        (ListEvent.ADDED, "Bo First"),
        (ListEvent.ADDED, "Ann Lee"),
        (ListEvent.REORDERED, "Ann Soto"),
        (ListEvent.REMOVED, "Ann Soto"),
    ]
    floor_services.update_player(player=ann, name="Ann Ruiz", by=floor)
    names = [line.player_name for line in day_report(timezone.localdate()).lines]
    assert names == ["Bo First", "Ann Lee", "Ann Soto", "Ann Soto"]  # a later rename rewrites nothing
    (by_hand,) = day_report(timezone.localdate()).by_hand
    assert (by_hand.record.event, by_hand.player_name) == (ListEvent.REORDERED, "Ann Soto")


def test_the_names_cost_one_query_whatever_the_events(
    holdem_list: WaitingList, users: dict[str, Any]
) -> None:
    floor = users["floor"]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            report = day_report(timezone.localdate())
            [line.player_name for line in report.lines]
        return len(captured)

    players = [Player.objects.create(name=f"Player {n}") for n in range(2)]
    for player in players:
        services.add_player(waiting_lists=[holdem_list], player=player, by=floor)
        floor_services.update_player(player=player, name=f"{player.name} renamed", by=floor)
    few = queries()
    players = [Player.objects.create(name=f"More {n}") for n in range(6)]
    for player in players:
        services.add_player(waiting_lists=[holdem_list], player=player, by=floor)
        floor_services.update_player(player=player, name=f"{player.name} renamed", by=floor)
    assert queries() == few

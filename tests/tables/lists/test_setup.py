"""The lists' set-up (tables/lists/setup.py): the room's settings checked and recorded, a list closed
only when empty and opened again."""

from __future__ import annotations

from typing import Any

import pytest

from tables.errors import FloorConflict, FloorError, FloorValidationError
from tables.lists import services
from tables.models import ConfigChange, MissedCallPolicy, Player, WaitingList, WaitingListSettings
from tests.tables.lists.steps import add


def test_settings_are_checked_and_recorded(floor: Any, house: None) -> None:
    assert WaitingListSettings.current().call_minutes == 5  # the defaults before the first save
    with pytest.raises(FloorValidationError) as refused:
        services.update_list_settings(by=floor, reason="x", call_minutes=0)
    assert refused.value.field == "call_minutes"
    with pytest.raises(FloorValidationError):
        services.update_list_settings(by=floor, reason="x", interest_by_game={"nope": 4})
    with pytest.raises(FloorValidationError):
        services.update_list_settings(by=floor, reason="x", missed_call_policy="shrug")
    settings = services.update_list_settings(
        by=floor, reason="weekend", call_minutes=3, missed_call_policy=MissedCallPolicy.OFF
    )
    assert (settings.call_minutes, settings.missed_call_policy, settings.updated_by) == (3, "off", floor)
    change = ConfigChange.objects.filter(reason="weekend").get()
    assert (change.before["call_minutes"], change.after["call_minutes"]) == (5, 3)


def test_a_list_closes_only_when_empty(holdem_list: WaitingList, floor: Any) -> None:
    (entry,) = add(Player.objects.create(name="Oz O"), holdem_list, by=floor)
    with pytest.raises(FloorConflict):
        services.close_list(waiting_list=holdem_list, by=floor)
    services.remove_from_list(entry=entry, by=floor, reason="went home")
    services.close_list(waiting_list=holdem_list, by=floor)
    with pytest.raises(FloorError):
        add(Player.objects.create(name="Pat P"), holdem_list, by=floor)
    assert (
        services.create_list(game=holdem_list.game, stakes=holdem_list.stakes, by=floor).pk == holdem_list.pk
    )

"""The lists' models (tables/lists/models.py): the record is append-only."""

from __future__ import annotations

from typing import Any

import pytest

from tables.models import Player, WaitingList, WaitingListEvent
from tests.tables.lists.steps import add


def test_the_record_is_append_only(holdem_list: WaitingList, floor: Any) -> None:
    add(Player.objects.create(name="Ned N"), holdem_list, by=floor)
    event = WaitingListEvent.objects.get()
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        WaitingListEvent.objects.all().delete()
    with pytest.raises(TypeError):
        WaitingListEvent.objects.update(reason="rewritten")

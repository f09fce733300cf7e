"""The waiting lists' rules over places in memory (tables/lists/rules.py): a missed call down then
off, the policies, expiries in the order they fell due."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tables.lists.rules import Place, Rules, ordered, settle
from tables.models import EntrySource, EntryState, ListEvent, MissedCallPolicy
from tests.tables.lists.steps import NOW


def place(pk: int, **kwargs: Any) -> Place:
    values: dict[str, Any] = {
        "id": pk,
        "player_id": 100 + pk,
        "position": pk,
        "state": EntryState.WAITING,
        "added_via": EntrySource.IN_PERSON,
        "expires_at": None,
        "arrived_at": None,
        "call_deadline": None,
        "called_to_id": None,
        "misses": 0,
    }
    values.update(kwargs)
    return Place(**values)


def test_a_missed_call_moves_down_once_then_off_the_list() -> None:
    rules = Rules(MissedCallPolicy.DOWN_THEN_OFF, move_down_places=2)
    called = place(1, state=EntryState.CALLED, call_deadline=NOW - dt.timedelta(minutes=1), called_to_id=7)
    places = ordered([called, place(2), place(3), place(4)])
    (lapse,) = settle(places, rules, NOW)
    assert [p.id for p in places] == [2, 3, 1, 4]
    assert (lapse.event, lapse.at, lapse.position_before, lapse.position_after) == (
        ListEvent.PASSED,
        NOW - dt.timedelta(minutes=1),
        1,
        3,
    )
    assert "moved down 2 places" in lapse.reason
    assert settle(places, rules, NOW) == []  # settling again changes nothing
    called.state, called.call_deadline, called.called_to_id = EntryState.CALLED, NOW, 7
    (second,) = settle(places, rules, NOW)
    assert second.position_after is None
    assert called.state == EntryState.REMOVED
    assert [p.id for p in places] == [2, 3, 4]


def test_policies_bottom_and_off_and_expiries_in_the_order_they_fell_due() -> None:
    late = NOW - dt.timedelta(minutes=5)
    later_still = NOW - dt.timedelta(minutes=1)
    places = ordered(
        [
            place(1, state=EntryState.CALLED, call_deadline=later_still, called_to_id=7),
            place(2, added_via=EntrySource.PHONE, expires_at=late),
            place(3),
            place(4, added_via=EntrySource.PHONE, expires_at=NOW + dt.timedelta(minutes=1)),
            place(5, added_via=EntrySource.PHONE, expires_at=late, arrived_at=late - dt.timedelta(minutes=1)),
        ]
    )
    lapses = settle(places, Rules(MissedCallPolicy.BOTTOM_THEN_OFF, 3), NOW)
    assert [(lapse.place_id, lapse.event) for lapse in lapses] == [
        (2, ListEvent.EXPIRED),
        (1, ListEvent.PASSED),
    ]
    assert [p.id for p in places] == [3, 4, 5, 1]  # to the bottom; 4 hasn't expired yet, 5 arrived
    off = ordered([place(1, state=EntryState.CALLED, call_deadline=late, called_to_id=7), place(2)])
    (lapse,) = settle(off, Rules(MissedCallPolicy.OFF, 3), NOW)
    assert lapse.position_after is None
    assert [p.id for p in off] == [2]

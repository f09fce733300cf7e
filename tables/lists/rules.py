"""The waiting lists' rules over places held in memory (no query): the order of a list, a missed
call, an expired call-in, a move by hand; and the rules' copies of the rows (:func:`place_of`,
:func:`rules_of`).

One module for the writer and the readers: the services (:mod:`tables.lists.places`, under
:mod:`tables.lists.calls`) apply these to the rows they lock and record what happened; the
selectors (:mod:`tables.lists.selectors`: the floor screen, the board, the API) apply the same
functions to copies, so a call-in whose hour is up or a missed call shows the moment it is due,
exactly as the next write will record it (dated at its deadline, not at the write).

A list's places are kept in order, ``position`` 1 first, renumbered 1..n after every change.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from tables.lists.models import (
    EntrySource,
    EntryState,
    ListEvent,
    MissedCallPolicy,
    WaitingListEntry,
    WaitingListSettings,
)


@dataclass(slots=True)
class Place:
    """A place on a list as the rules see it (a copy of a :class:`WaitingListEntry`'s fields)."""

    id: int
    player_id: int
    position: int
    state: str
    added_via: str
    expires_at: datetime.datetime | None
    arrived_at: datetime.datetime | None
    call_deadline: datetime.datetime | None
    called_to_id: int | None
    misses: int

    @property
    def waiting_for_arrival(self) -> bool:
        """A call-in who hasn't arrived: keeps the place, but is not called."""
        return self.added_via == EntrySource.PHONE and self.arrived_at is None


@dataclass(frozen=True, slots=True)
class Rules:
    """What a missed call costs (from :class:`tables.models.WaitingListSettings`)."""

    missed_call_policy: str
    move_down_places: int


@dataclass(frozen=True, slots=True)
class Lapse:
    """A place changed by a rule: an expired call-in, or a missed (or passed) call. ``position_after``
    is None when the place went off the list."""

    place_id: int
    player_id: int
    event: str
    at: datetime.datetime
    position_before: int
    position_after: int | None
    reason: str


def place_of(entry: WaitingListEntry) -> Place:
    """The rules' copy of ``entry``."""
    return Place(
        id=entry.pk,
        player_id=entry.player_id,
        position=entry.position,
        state=entry.state,
        added_via=entry.added_via,
        expires_at=entry.expires_at,
        arrived_at=entry.arrived_at,
        call_deadline=entry.call_deadline,
        called_to_id=entry.called_to_id,
        misses=entry.misses,
    )


def rules_of(settings: WaitingListSettings) -> Rules:
    """The room's rules of a missed call, from its settings."""
    return Rules(missed_call_policy=settings.missed_call_policy, move_down_places=settings.move_down_places)


def renumber(places: list[Place]) -> None:
    """Positions 1..n in list order."""
    for index, place in enumerate(places, start=1):
        place.position = index


def ordered(places: Iterable[Place]) -> list[Place]:
    """The places on the list (waiting or called), in order, renumbered."""
    result = sorted((p for p in places if p.state in EntryState.on_list()), key=lambda p: (p.position, p.id))
    renumber(result)
    return result


def move_to(places: list[Place], place: Place, position: int) -> tuple[int, int]:
    """Move ``place`` to ``position`` (clamped to the list) in ``places`` (in order); returns the
    positions (before, after)."""
    before = places.index(place) + 1
    places.remove(place)
    after = max(1, min(position, len(places) + 1))
    places.insert(after - 1, place)
    renumber(places)
    return before, after


def take_off(places: list[Place], place: Place, state: str) -> int:
    """``place`` leaves the list in ``state`` (seated, removed, expired); returns its position then."""
    before = places.index(place) + 1
    places.remove(place)
    place.state = state
    renumber(places)
    return before


def miss(places: list[Place], place: Place, rules: Rules, *, at: datetime.datetime, why: str) -> Lapse:
    """A called player who didn't take the seat (``why``: missed it, declined it): the call ends
    and the room's policy applies. The first miss moves the player down (``move_down_places``) or to
    the bottom; the second, or any under the policy ``off``, takes them off the list."""
    place.misses += 1
    place.call_deadline = None
    place.called_to_id = None
    off = rules.missed_call_policy == MissedCallPolicy.OFF or place.misses > 1
    if off:
        before = take_off(places, place, EntryState.REMOVED)
        return Lapse(place.id, place.player_id, ListEvent.PASSED, at, before, None, f"{why}; off the list")
    place.state = EntryState.WAITING
    current = places.index(place) + 1
    if rules.missed_call_policy == MissedCallPolicy.BOTTOM_THEN_OFF:
        target, how = len(places), "to the bottom of the list"
    else:
        target = current + rules.move_down_places
        how = f"down {rules.move_down_places} place{'s' if rules.move_down_places != 1 else ''}"
    before, after = move_to(places, place, target)
    return Lapse(place.id, place.player_id, ListEvent.PASSED, at, before, after, f"{why}; moved {how}")


def settle(places: list[Place], rules: Rules, now: datetime.datetime) -> list[Lapse]:
    """Apply every time limit passed by ``now`` to ``places`` (one list's places on the list, in
    order), in the order they fell due: a call-in not arrived by ``expires_at`` is off the list
    (expired); a called player who didn't take the seat by ``call_deadline`` missed the call
    (:func:`miss`). Changes ``places`` in place; returns what happened, each dated at its deadline.
    Settling again changes nothing (every lapse moves its place out of the state that made it)."""
    due: list[tuple[datetime.datetime, int, Place]] = []
    for place in places:
        if place.waiting_for_arrival and place.expires_at is not None and place.expires_at <= now:
            due.append((place.expires_at, place.id, place))
        elif (
            place.state == EntryState.CALLED
            and place.call_deadline is not None
            and place.call_deadline <= now
        ):
            due.append((place.call_deadline, place.id, place))
    lapses: list[Lapse] = []
    for at, _, place in sorted(due, key=lambda item: (item[0], item[1])):
        if place.state == EntryState.CALLED:
            lapses.append(miss(places, place, rules, at=at, why="did not take the seat in time"))
        else:
            before = take_off(places, place, EntryState.EXPIRED)
            lapses.append(
                Lapse(
                    place.id,
                    place.player_id,
                    ListEvent.EXPIRED,
                    at,
                    before,
                    None,
                    "call-in did not arrive in time",
                )
            )
    return lapses

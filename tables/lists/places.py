"""The places of a locked waiting list, and the record: the first and last step of every change to
a list (:mod:`tables.lists.calls`, :mod:`tables.lists.setup`, :mod:`tables.lists.must_move`).

* :func:`lock_lists`: the lists' rows locked in primary-key order (after any table: tables first);
* :class:`Places`: a locked list's places in order, the rules' copies of its entries
  (:mod:`tables.lists.rules`), written back by :meth:`Places.save`;
* :func:`settled`: a locked list with the time limits passed recorded first (dated at their
  deadlines), so a service decides on the list the floor screen shows; :func:`player_lists`:
  every list a player is on, locked and settled;
* :func:`record_event`: one :class:`tables.models.WaitingListEvent`;
* :func:`choice`, :func:`clean_text`: the typed input's checks.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.utils import timezone

from tables.errors import FloorValidationError, NotOnList
from tables.lists.rules import Lapse, Place, ordered, place_of, rules_of, settle
from tables.models import (
    EntryState,
    ListEvent,
    Player,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from tables.services.common import User, acting_user, check_text


def lock_lists(ids: Iterable[int]) -> dict[int, WaitingList]:
    """The lists' rows, locked until the transaction ends, in primary-key order (with game, stakes)."""
    rows = (
        WaitingList.objects.select_for_update(of=("self",))
        .select_related("game", "stakes")
        .filter(pk__in=sorted(set(ids)))
        .order_by("pk")
    )
    return {w.pk: w for w in rows}


def record_event(
    *,
    event: str,
    waiting_list: WaitingList,
    player: Player,
    by: User,
    at: datetime.datetime | None = None,
    entry: WaitingListEntry | None = None,
    table: Table | None = None,
    seat_number: int | None = None,
    position_before: int | None = None,
    position_after: int | None = None,
    reason: str = "",
    passed_over: list[dict[str, Any]] | None = None,
) -> WaitingListEvent:
    """Append one event to the record (``by`` None: the clock or the system)."""
    user = acting_user(by)
    return WaitingListEvent.objects.create(
        at=at or timezone.now(),
        by=user,
        by_username=user.get_username() if user is not None else "",
        event=event,
        waiting_list=waiting_list,
        entry=entry,
        player=player,
        table=table,
        seat_number=seat_number,
        position_before=position_before,
        position_after=position_after,
        reason=reason,
        passed_over=passed_over or [],
    )


class Places:
    """A locked list's places on the list, in order (``order``), and the entries they copy."""

    def __init__(self, waiting_list: WaitingList) -> None:
        self.waiting_list = waiting_list
        self.entries = {
            e.pk: e
            for e in WaitingListEntry.objects.filter(
                waiting_list=waiting_list, state__in=EntryState.on_list()
            )
            .select_related("player", "called_to", "from_table")
            .order_by("position", "id")
        }
        self.places = {pk: place_of(e) for pk, e in self.entries.items()}
        self.order = ordered(self.places.values())

    def on_list(self, entry: WaitingListEntry) -> Place:
        """``entry``'s place; NotOnList when it is no longer on the list."""
        place = self.places.get(entry.pk)
        if place is None or place.state not in EntryState.on_list():
            raise NotOnList(f"{entry.player} is no longer on the {self.waiting_list.label} list.")
        return place

    def of_player(self, player: Player) -> Place | None:
        return next((p for p in self.order if p.player_id == player.pk), None)

    def save(self, ended: dict[int, tuple[datetime.datetime, str]]) -> None:
        """Write what changed in the places back to their entries; ``ended``: the places that went off
        the list, with when and why."""
        changed = []
        for pk, place in self.places.items():
            entry = self.entries[pk]
            fields = {
                "state": place.state,
                "position": place.position,
                "misses": place.misses,
                "call_deadline": place.call_deadline,
                "called_to_id": place.called_to_id,
                "arrived_at": place.arrived_at,
            }
            if pk in ended:
                fields["ended_at"], fields["ended_reason"] = ended[pk][0], ended[pk][1][:200]
            if any(getattr(entry, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(entry, name, value)
                changed.append(entry)
        if changed:
            WaitingListEntry.objects.bulk_update(
                changed,
                [
                    "state",
                    "position",
                    "misses",
                    "call_deadline",
                    "called_to",
                    "arrived_at",
                    "ended_at",
                    "ended_reason",
                ],
            )


def _record_lapses(places: Places, lapses: Sequence[Lapse], called_to: dict[int, Table | None]) -> None:
    for lapse in lapses:
        entry = places.entries[lapse.place_id]
        record_event(
            event=lapse.event,
            waiting_list=places.waiting_list,
            player=entry.player,
            by=None,
            at=lapse.at,
            entry=entry,
            table=called_to.get(lapse.place_id) if lapse.event == ListEvent.PASSED else None,
            position_before=lapse.position_before,
            position_after=lapse.position_after,
            reason=lapse.reason,
        )


def settled(waiting_list: WaitingList, now: datetime.datetime) -> tuple[Places, list[Lapse]]:
    """A locked list's places after recording the time limits passed by ``now`` (each event dated
    at its deadline)."""
    places = Places(waiting_list)
    called_to = {pk: entry.called_to for pk, entry in places.entries.items()}  # a missed call ends it
    lapses = settle(places.order, rules_of(WaitingListSettings.current()), now)
    places.save(
        {lapse.place_id: (lapse.at, lapse.reason) for lapse in lapses if lapse.position_after is None}
    )
    _record_lapses(places, lapses, called_to)
    return places, lapses


def choice(choices: type[Any], value: str, field: str) -> str:
    """``value`` when it is one of ``choices``' values (a TextChoices), else FloorValidationError."""
    if value not in choices.values:
        raise FloorValidationError(f"{value!r} is not one of {', '.join(choices.values)}.", field=field)
    return value


def clean_text(text: str | None, *, field: str, what: str, longest: int) -> str:
    """``text`` stripped; FloorValidationError when longer than ``longest`` or not printable."""
    text = (text or "").strip()
    check_text(text, field=field, what=what, longest=longest)
    return text


def player_lists(player: Player, also: Iterable[int], now: datetime.datetime) -> dict[int, Places]:
    """Lock (primary-key order) and settle every list ``player`` is on, and ``also``."""
    ids = set(also) | set(
        WaitingListEntry.objects.filter(player=player, state__in=EntryState.on_list()).values_list(
            "waiting_list_id", flat=True
        )
    )
    return {pk: settled(w, now)[0] for pk, w in lock_lists(ids).items()}

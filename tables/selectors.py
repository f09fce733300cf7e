"""Read-only queries over the floor model (no writes; safe to call anywhere).

The ledger looks fees up here: :func:`rate_for_hand` gives the collection rate that applied to a
hand as the schedule stood when the hand started.

One identity per player: a merged record (``Player.merged_into``) is read as the player it was
merged into, with every record merged into it (:func:`identity_q`, :func:`survivor_of`); the
search (:func:`find_players`) and the "same person?" check (:func:`same_person_candidates`) answer
with those survivors only. A choice game's games: :func:`choice_games`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Q, QuerySet, Subquery
from django.utils import timezone

from casino.core.versions import in_force
from tables.choices import GameKind
from tables.models import (
    CollectionRate,
    CollectionSchedule,
    Game,
    Hand,
    Player,
    Seating,
    Stakes,
    Table,
    name_key,
    phone_digits,
)

#: Most players the search and the "same person?" check name.
MAX_FOUND = 20
#: Fewest digits a phone match needs (fewer would match half the room).
PHONE_MATCH_DIGITS = 7


def applicable_rates(rates: Iterable[CollectionRate], stakes: Stakes) -> list[CollectionRate]:
    """The rows of ``rates`` that cover ``stakes`` (any players band)."""
    return [rate for rate in rates if rate.matches_stakes(stakes)]


def table_rates(table: Table, *, at: datetime.datetime | None = None) -> list[CollectionRate]:
    """The collection rates that apply at ``table`` as its schedule stood at ``at`` (<= 5)."""
    version = table.collection_schedule.version_at(at)
    if version is None:
        return []
    return applicable_rates(version.rates.all(), table.stakes)


def rate_for(
    *, schedule: CollectionSchedule, stakes: Stakes, players: int, at: datetime.datetime | None = None
) -> CollectionRate | None:
    """The rate for a hand of ``players`` at ``stakes`` under ``schedule`` as in force at ``at``.

    One query (every hand's start makes it): the rates of the version in force, as
    :meth:`~tables.models.CollectionSchedule.version_at` gives it (:mod:`casino.core.versions`)."""
    at = at or timezone.now()
    version = in_force(schedule.versions.all(), at).values("pk")[:1]
    rates = CollectionRate.objects.filter(version=Subquery(version)).order_by("id")
    for rate in applicable_rates(rates, stakes):
        if rate.covers_players(players):
            return rate
    return None


def rate_for_hand(hand: Hand) -> CollectionRate | None:
    """The rate that applies to ``hand``: its schedule as in force when it started."""
    return rate_for(
        schedule=hand.collection_schedule,
        stakes=hand.stakes,
        players=hand.players.count(),
        at=hand.created_at,
    )


def active_seatings(table: Table) -> QuerySet[Seating]:
    """Who sits at ``table`` now, by seat number (seat and player joined)."""
    return (
        Seating.objects.active().filter(table=table).select_related("seat", "player").order_by("seat__number")
    )


# --- A choice game's games -------------------------------------------------------------------------


def choice_games(game: Game) -> list[Game]:
    """The games the button picks from at a table of ``game``: a choice game's own list (004's
    Seven Card Stud Choice: stud, stud hi-lo, razz), else, at dealer's choice, every approved pot
    game that is not itself a choice; none at any other game."""
    if not game.is_dealers_choice:
        return []
    listed = list(game.choice_of.filter(is_active=True).order_by("sort_order", "slug"))
    if listed:
        return listed
    return list(Game.objects.filter(kind=GameKind.POT, is_dealers_choice=False, is_active=True))


# --- One identity per player ------------------------------------------------------------------------


def survivor_id(player: Player) -> int:
    """The id of the record ``player`` stands for: the player it was merged into, else its own."""
    return player.merged_into_id or player.pk


def survivor_of(player: Player) -> Player:
    """The record ``player`` stands for (itself unless it was merged into another)."""
    return player.merged_into if player.merged_into_id is not None and player.merged_into else player


def identity_q(player: Player, *, prefix: str = "player") -> Q:
    """Rows (``prefix`` the path to their player) of ``player``'s whole identity: the survivor and
    every record merged into it. Merges keep groups flat (a merge repoints what was merged into the
    merged record), so this is one level."""
    root = survivor_id(player)
    return Q(**{f"{prefix}_id": root}) | Q(**{f"{prefix}__merged_into_id": root})


def identity_players(player: Player) -> QuerySet[Player]:
    """The survivor and every record merged into it."""
    root = survivor_id(player)
    return Player.objects.filter(Q(pk=root) | Q(merged_into_id=root))


def seated_elsewhere(player: Player, table: Table | None = None) -> list[Seating]:
    """Where ``player`` (any record of the identity) sits now, but at ``table``; by table number."""
    seatings = Seating.objects.active().filter(identity_q(player)).select_related("table", "seat", "player")
    if table is not None:
        seatings = seatings.exclude(table=table)
    return list(seatings.order_by("table__number"))


def _survivors(players: QuerySet[Player], limit: int) -> list[Player]:
    """The survivors of ``players`` (a merged record found stands for its survivor), by name."""
    found = players.values_list("merged_into_id", "pk")[: limit * 4]
    roots = {merged_into or pk for merged_into, pk in found}
    return list(Player.objects.filter(pk__in=roots, merged_into__isnull=True).order_by("name", "id")[:limit])


def find_players(query: str, *, limit: int = MAX_FOUND) -> list[Player]:
    """Players matching what was typed, as it is typed: every word of it in the name (any order,
    accents and case aside), or a member number starting with it, or a phone number holding its
    digits (3 or more). Merged records are answered by their survivor."""
    # What a person types (a control character, a NUL, is no part of a name, number or phone).
    text = "".join(c for c in (query or "") if c.isprintable()).strip()[:100]
    if not text:
        return []
    words = name_key(text).split()
    match = Q(member_number__istartswith=text)
    if words:
        by_name = Q()
        for word in words:
            by_name &= Q(name_key__contains=word)
        match |= by_name
    digits = phone_digits(text)
    if len(digits) >= 3:
        match |= Q(phone_digits__contains=digits)
    return _survivors(Player.objects.filter(match), limit)


def same_person_candidates(
    *, name: str, phone: str = "", exclude: Player | None = None, limit: int = MAX_FOUND
) -> list[Player]:
    """Players on file who may be the person a new record names: the same name (its key: accents,
    case, spacing, punctuation and word order aside) or the same phone number. Survivors only."""
    key = name_key("".join(c for c in name or "" if c.isprintable()))
    match = Q(name_key=key) if key else Q(pk__in=[])
    digits = phone_digits(phone)
    if len(digits) >= PHONE_MATCH_DIGITS:
        match |= Q(phone_digits=digits)
    players = Player.objects.filter(match)
    if exclude is not None:
        root = survivor_id(exclude)
        players = players.exclude(Q(pk=root) | Q(merged_into_id=root))
    return _survivors(players, limit)

"""Players: create one, rename or renumber one, delete one who never sat at a table, merge two
records of one person.

A name is 1 to 100 printable characters; a member number is optional, and unique when given; a
phone is optional (up to 30 characters: digits, spaces, ``+ - ( ) .``).

One identity per player: a new record whose name or phone matches a player on file is refused
with ``possible_duplicate`` when the caller asks (``check_same_person``: the pages and the API ask
"same person?" and pass False once the floor said it is someone else). A duplicate found later is
merged (:func:`merge_players`): nothing of either record is rewritten but the merged row's
``merged_into``; the merge is a :class:`tables.models.PlayerMerge` of its own.
"""

from __future__ import annotations

import re

from django.db import IntegrityError, transaction
from django.db.models import Q

from casino.core.db import service
from tables.errors import (
    FloorConflict,
    FloorValidationError,
    InUse,
    PlayerMerged,
    PossibleDuplicate,
)
from tables.models import (
    HandPlayer,
    Player,
    PlayerMerge,
    Seating,
)
from tables.selectors import same_person_candidates, seated_elsewhere
from tables.services.common import User, acting_user, check_text, require_reason

_PHONE = re.compile(r"[0-9 +().-]{0,30}")


def _clean_member_number(member_number: str | None) -> str | None:
    number = (member_number or "").strip() or None
    if number is not None:
        check_text(number, field="member_number", what="A member number", longest=20)
    return number


def _player_name(name: str | None) -> str:
    """The player's name as stored: stripped, 1 to 100 printable characters (the column's size;
    a control character such as NUL is a typing or a tampering accident, and PostgreSQL refuses
    NUL outright)."""
    name = (name or "").strip()
    if not name:
        raise FloorValidationError("A player needs a name.", field="name")
    check_text(name, field="name", what="A player's name", longest=100)
    return name


def _check_member_number_free(member_number: str | None, *, exclude: int | None = None) -> None:
    if member_number is None:
        return
    players = Player.objects.filter(member_number=member_number)
    clash = (players.exclude(pk=exclude) if exclude is not None else players).first()
    if clash is not None:
        raise FloorConflict(
            f"Member number {member_number} belongs to {clash.name}.",
            code="duplicate_member_number",
            field="member_number",
        )


def _clean_phone(phone: str | None) -> str:
    phone = (phone or "").strip()
    if not _PHONE.fullmatch(phone):
        raise FloorValidationError(
            "A phone number is at most 30 digits, spaces and + - ( ) . characters.", field="phone"
        )
    return phone


def _describe(player: Player) -> str:
    """A player as the "same person?" question names them: name, member number, phone."""
    details = [f"#{player.member_number}" if player.member_number else "", player.phone]
    extra = ", ".join(d for d in details if d)
    return f"{player.name} ({extra})" if extra else f"{player.name} (player {player.pk})"


def check_not_merged(player: Player, doing: str) -> None:
    """PlayerMerged when ``player`` is a merged record (act on the survivor instead)."""
    if player.merged_into_id is not None:
        survivor = Player.objects.get(pk=player.merged_into_id)
        raise PlayerMerged(
            f"{player.name} (player {player.pk}) was merged into {_describe(survivor)}; {doing} them as "
            "that player.",
            field="player",
        )


@service
def create_player(
    *,
    name: str,
    member_number: str | None = None,
    phone: str | None = "",
    by: User = None,
    check_same_person: bool = False,
) -> Player:
    """A new player. ``member_number`` is optional and must be unique when given; ``phone`` is
    optional. With ``check_same_person``, a name (or phone) matching a player on file is refused
    with PossibleDuplicate naming them ("same person?"); the caller asks again without the check
    once the floor said it is someone else. Raises FloorValidationError (an empty name, too long,
    a control character, a bad phone), FloorConflict (the member number is taken)."""
    name = _player_name(name)
    member_number = _clean_member_number(member_number)
    phone = _clean_phone(phone)
    _check_member_number_free(member_number)
    if check_same_person:
        same = same_person_candidates(name=name, phone=phone)
        if same:
            raise PossibleDuplicate(
                f"Same person? {name} may already be on file: {'; '.join(_describe(p) for p in same)}. "
                "Choose them, or confirm that this is someone else.",
                field="name",
            )
    try:
        with transaction.atomic():
            return Player.objects.create(name=name, member_number=member_number, phone=phone)
    except IntegrityError:  # a concurrent create took the number between check and insert
        _check_member_number_free(member_number)
        raise


@service
def update_player(
    *,
    player: Player,
    by: User = None,
    name: str | None = None,
    member_number: str | None = "__unchanged__",
    phone: str | None = None,
) -> Player:
    """Rename a player, change the member number (None or "" clears it) and/or the phone ("" clears
    it). A merged record is not changed (PlayerMerged: change the survivor)."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_not_merged(player, "change")
    if name is not None:
        player.name = _player_name(name)
    if member_number != "__unchanged__":
        cleaned = _clean_member_number(member_number)
        _check_member_number_free(cleaned, exclude=player.pk)
        player.member_number = cleaned
    if phone is not None:
        player.phone = _clean_phone(phone)
    player.save()
    return player


@service
def merge_players(*, survivor: Player, merged: Player, by: User, reason: str) -> PlayerMerge:
    """Merge ``merged`` into ``survivor``: two records of one person become one identity.

    Every record of both is kept as it is (seatings, chip movements, hands, identifications, and
    the ledger's accounts and entries, which are never rewritten): ``merged`` only gets
    ``merged_into``, records merged into it before now point at ``survivor`` too (one level), and
    the merge is recorded (:class:`~tables.models.PlayerMerge`, with what ``merged`` said and the
    reason). The floor's selectors then read the two as one player (:mod:`tables.selectors`).

    Refused: the same record twice (FloorValidationError), either one already merged
    (PlayerMerged), or both seated at once (FloorConflict ``both_seated``: one person sits at one
    table; cash one out or move them first). Needs a reason.
    """
    reason = require_reason(reason)
    if survivor.pk == merged.pk:
        raise FloorValidationError("Choose two different players to merge.", field="merged")
    # Both rows locked, in id order (two merges of the same pair can't deadlock).
    rows = {p.pk: p for p in Player.objects.select_for_update().filter(pk__in=[survivor.pk, merged.pk])}
    survivor, merged = rows[survivor.pk], rows[merged.pk]
    check_not_merged(survivor, "merge into")
    if merged.merged_into_id is not None:
        raise PlayerMerged(f"{merged.name} (player {merged.pk}) was already merged.", field="merged")
    kept_seated = seated_elsewhere(survivor)
    merged_seated = seated_elsewhere(merged)
    if kept_seated and merged_seated:
        where = ", ".join(
            f"{s.player.name} at table {s.table.number} seat {s.seat.number}"
            for s in kept_seated + merged_seated
        )
        raise FloorConflict(
            f"Both records are seated ({where}): one person sits at one table. Cash one out or move them "
            "first, then merge.",
            code="both_seated",
        )
    user = acting_user(by)
    record = PlayerMerge.objects.create(
        survivor=survivor,
        merged=merged,
        merged_as={"name": merged.name, "member_number": merged.member_number, "phone": merged.phone},
        reason=reason,
        by=user,
        by_username=user.get_username() if user is not None else "",
    )
    Player.objects.filter(Q(pk=merged.pk) | Q(merged_into_id=merged.pk)).update(merged_into=survivor)
    return record


@service
def delete_player(*, player: Player, by: User = None) -> None:
    """Delete a player who never sat at a table; anyone with history (or merged) is kept."""
    if player.merged_into_id is not None or Player.objects.filter(merged_into=player).exists():
        raise InUse(f"{player} is part of a merge and can't be deleted.")
    if Seating.objects.filter(player=player).exists() or HandPlayer.objects.filter(player=player).exists():
        raise InUse(f"{player} has seatings or hands on record and can't be deleted.")
    player.delete()

"""Players: create one, rename or renumber one, delete one who never sat at a table.

A name is 1 to 100 printable characters; a member number is optional, and unique when given.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from casino.core.db import service
from tables.errors import (
    FloorConflict,
    FloorValidationError,
    InUse,
)
from tables.models import (
    HandPlayer,
    Player,
    Seating,
)
from tables.services.common import User, check_text


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


@service
def create_player(*, name: str, member_number: str | None = None, by: User = None) -> Player:
    """A new player. ``member_number`` is optional and must be unique when given. Raises
    FloorValidationError (an empty name, too long, a control character), FloorConflict (the
    member number is taken)."""
    name = _player_name(name)
    member_number = _clean_member_number(member_number)
    _check_member_number_free(member_number)
    try:
        with transaction.atomic():
            return Player.objects.create(name=name, member_number=member_number)
    except IntegrityError:  # a concurrent create took the number between check and insert
        _check_member_number_free(member_number)
        raise


@service
def update_player(
    *, player: Player, by: User = None, name: str | None = None, member_number: str | None = "__unchanged__"
) -> Player:
    """Rename a player and/or change the member number (None or "" clears it)."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if name is not None:
        player.name = _player_name(name)
    if member_number != "__unchanged__":
        cleaned = _clean_member_number(member_number)
        _check_member_number_free(cleaned, exclude=player.pk)
        player.member_number = cleaned
    player.save()
    return player


@service
def delete_player(*, player: Player, by: User = None) -> None:
    """Delete a player who never sat at a table; anyone with history is kept."""
    if Seating.objects.filter(player=player).exists() or HandPlayer.objects.filter(player=player).exists():
        raise InUse(f"{player} has seatings or hands on record and can't be deleted.")
    player.delete()

"""Players: create one, rename or renumber one, delete one with no history at all, merge two
records of one person. Each change is written in words to the change log
(:class:`tables.models.ConfigChange`, in the change's transaction: who, when, old -> new).

A name is 1 to 100 printable characters; a member number is optional, and unique when given; a
phone is optional (up to 30 characters: digits, spaces, ``+ - ( ) .``).

One identity per player: a new record whose name or phone matches a player on file is refused
with ``possible_duplicate`` when the caller asks (``check_same_person``: the pages and the API ask
"same person?" and pass False once the floor said it is someone else). A duplicate found later is
merged (:func:`merge_players`): nothing of either record is rewritten but the merged row's
``merged_into``; the merge is a :class:`tables.models.PlayerMerge` of its own.

The change log keeps a player's name, board name, member number and phone; the member number and
the phone never in clear, only their last two characters (:func:`hidden_number`): the log is
permanent, and a number that identifies a person has no place in it. A rename's row keeps the old
name, which is how the reports show a player's name as it was (:mod:`tables.player_names`).
"""

from __future__ import annotations

import re

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError, Q

from casino.core.db import service
from tables.errors import (
    FloorConflict,
    FloorNotFound,
    FloorValidationError,
    InUse,
    PlayerMerged,
    PossibleDuplicate,
)
from tables.history import record_change, subject
from tables.models import (
    ConfigAction,
    HandPlayer,
    Player,
    PlayerMerge,
    Seating,
)
from tables.selectors import same_person_candidates, seated_elsewhere
from tables.services.common import User, acting_user, check_text, require_reason

_PHONE = re.compile(r"[0-9 +().-]{0,30}")
#: What the change log keeps of a player, in this order; the numbers only as :func:`hidden_number`.
LOGGED_FIELDS = ("name", "board_alias", "member_number", "phone")
_HIDDEN_FIELDS = frozenset({"member_number", "phone"})
_UNCHANGED = "__unchanged__"


def hidden_number(number: str | None) -> str:
    """A member number or phone as the change log writes it: ``ending 82`` (its last two
    characters; a number shorter than 4 characters not even those: ``set``), "" for none."""
    number = (number or "").strip()
    if not number:
        return ""
    return f"ending {number[-2:]}" if len(number) >= 4 else "set"


def _values(player: Player) -> dict[str, str]:
    """The logged fields of ``player`` as they are (numbers in clear: compared, never written)."""
    return {field: getattr(player, field) or "" for field in LOGGED_FIELDS}


def _logged(field: str, value: str) -> str:
    return hidden_number(value) if field in _HIDDEN_FIELDS else value


def _as_logged(values: dict[str, str]) -> dict[str, str]:
    """A player as the log writes it: every logged field (a creation, a deletion)."""
    return {field: _logged(field, value) for field, value in values.items()}


def _changed(old: dict[str, str], new: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The fields that changed, as the log writes them before and after. Two numbers that end
    alike still read as a change (``ending 01 -> ending 01 (another number)``)."""
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for field in LOGGED_FIELDS:
        if old[field] == new[field]:
            continue
        was, now = _logged(field, old[field]), _logged(field, new[field])
        before[field], after[field] = was, now if now != was else f"{now} (another number)"
    return before, after


def _board_alias(alias: str | None) -> str:
    """The board name as stored: stripped, at most 30 printable characters (the lists'
    ``set_board_alias`` changes it through :func:`update_player` too)."""
    alias = (alias or "").strip()
    check_text(alias, field="board_alias", what="A board name", longest=30)
    return alias


def _reason(reason: str | None) -> str:
    """A change's reason (optional): stripped, at most 500 printable characters (lines allowed)."""
    reason = (reason or "").strip()
    check_text(" ".join(reason.splitlines()), field="reason", what="The reason", longest=500)
    return reason


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
    board_alias: str = "",
    reason: str = "",
) -> Player:
    """A new player. ``member_number`` is optional and must be unique when given; ``phone`` and
    ``board_alias`` (the name the room's board shows) are optional. With ``check_same_person``, a
    name (or phone) matching a player on file is refused with PossibleDuplicate naming them ("same
    person?"); the caller asks again without the check once the floor said it is someone else.
    Raises FloorValidationError (an empty name, too long, a control character, a bad phone, a bad
    board name or reason), FloorConflict (the member number is taken).

    The creation is in the change log: who, when, the name (numbers hidden), ``reason`` if given."""
    name = _player_name(name)
    member_number = _clean_member_number(member_number)
    phone = _clean_phone(phone)
    board_alias = _board_alias(board_alias)
    reason = _reason(reason)
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
            player = Player.objects.create(
                name=name, member_number=member_number, phone=phone, board_alias=board_alias
            )
    except IntegrityError:  # a concurrent create took the number between check and insert
        _check_member_number_free(member_number)
        raise
    record_change(
        instance=player, action=ConfigAction.CREATE, by=by, reason=reason, after=_as_logged(_values(player))
    )
    return player


@service
def update_player(
    *,
    player: Player,
    by: User = None,
    name: str | None = None,
    member_number: str | None = _UNCHANGED,
    phone: str | None = None,
    board_alias: str | None = None,
    reason: str = "",
) -> Player:
    """Rename a player, change the member number (None or "" clears it), the phone ("" clears it)
    and/or the name the room's board shows (``board_alias``, "" for the first name and initial).
    A merged record is not changed (PlayerMerged: change the survivor).

    What changed is one row of the change log, old -> new (numbers hidden; a rename keeps the old
    name, which the reports show for the rows before it); nothing changed, no row."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_not_merged(player, "change")
    reason = _reason(reason)
    old = _values(player)
    if name is not None:
        player.name = _player_name(name)
    if member_number != _UNCHANGED:
        cleaned = _clean_member_number(member_number)
        _check_member_number_free(cleaned, exclude=player.pk)
        player.member_number = cleaned
    if phone is not None:
        player.phone = _clean_phone(phone)
    if board_alias is not None:
        player.board_alias = _board_alias(board_alias)
    before, after = _changed(old, _values(player))
    if not after:
        return player
    player.save()
    record_change(
        instance=player, action=ConfigAction.UPDATE, by=by, reason=reason, before=before, after=after
    )
    return player


@service
def merge_players(*, survivor: Player, merged: Player, by: User, reason: str) -> PlayerMerge:
    """Merge ``merged`` into ``survivor``: two records of one person become one identity.

    Every record of both is kept as it is (seatings, chip movements, hands, identifications, and
    the ledger's accounts and entries, which are never rewritten): ``merged`` only gets
    ``merged_into``, records merged into it before now point at ``survivor`` too (one level), and
    the merge is recorded (:class:`~tables.models.PlayerMerge`, with what ``merged`` said and the
    reason). The floor's selectors then read the two as one player (:mod:`tables.selectors`).
    The change log has a row for each record changed (``Merged into ...``) and one for the
    survivor (``Took in the record ...``), with the reason; each keeps its own name history.

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
    # ``merged`` first, then the records merged into it before, oldest first.
    moved = sorted(
        Player.objects.select_for_update().filter(Q(pk=merged.pk) | Q(merged_into_id=merged.pk)),
        key=lambda p: (p.pk != merged.pk, p.pk),
    )
    Player.objects.filter(pk__in=[p.pk for p in moved]).update(merged_into=survivor)
    for player in moved:
        record_change(
            instance=player,
            action=ConfigAction.UPDATE,
            by=by,
            reason=reason,
            after={"merged_into": subject(survivor)},
        )
    record_change(
        instance=survivor,
        action=ConfigAction.UPDATE,
        by=by,
        reason=reason,
        after={"merged_in": ", ".join(subject(p) for p in moved)},
    )
    return record


@service
def delete_player(*, player: Player, by: User = None, reason: str = "") -> None:
    """Delete a player with no history at all: never seated or dealt in, no chips, no place on a
    list, no identification, no merge (InUse names why; the database's references refuse the
    rest). The deletion is in the change log with what the record said (numbers hidden)."""
    reason = _reason(reason)
    found = Player.objects.select_for_update().filter(pk=player.pk).first()
    if found is None:
        raise FloorNotFound(f"There is no player {player.pk}.", code="player_not_found", field="player")
    player = found
    if player.merged_into_id is not None or Player.objects.filter(merged_into=player).exists():
        raise InUse(f"{player} is part of a merge and can't be deleted.")
    if Seating.objects.filter(player=player).exists() or HandPlayer.objects.filter(player=player).exists():
        raise InUse(f"{player} has seatings or hands on record and can't be deleted.")
    # Written first: the row names the player's id, which the deletion clears.
    record_change(
        instance=player, action=ConfigAction.DELETE, by=by, reason=reason, before=_as_logged(_values(player))
    )
    try:
        player.delete()
    except ProtectedError:  # chips, a list's record, an identification...: history is kept
        raise InUse(
            f"{player} has records on file (chips, lists or identification) and can't be deleted."
        ) from None

"""The waiting lists' set-up: a list opened or closed, the room's settings, a player's board name.
Each change is written to the configuration history (:func:`tables.history.record_change`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from casino.core.db import service
from tables.choices import MIN_PLAYERS, GameKind, Structure
from tables.errors import FloorConflict, FloorValidationError
from tables.history import record_change, snapshot
from tables.lists.places import choice, lock_lists, settled
from tables.models import (
    ConfigAction,
    Game,
    MissedCallPolicy,
    Player,
    Stakes,
    WaitingList,
    WaitingListSettings,
)
from tables.services.common import User, acting_user
from tables.services.players import update_player

# --- Lists ------------------------------------------------------------------------------------------


@service
def create_list(*, game: Game, stakes: Stakes, by: User, reason: str = "") -> WaitingList:
    """A list for ``game`` at ``stakes`` (a closed one opens again). Refused when the stakes don't fit
    the game (pot games: limit, pot or no limit; Chinese and Taiwanese poker: points)."""
    if (game.kind == GameKind.POT) == (stakes.structure == Structure.POINTS):
        raise FloorValidationError(f"{game.name} is not played at {stakes.label}.", field="stakes")
    existing = WaitingList.objects.select_for_update().filter(game=game, stakes=stakes).first()
    if existing is not None and existing.is_active:
        raise FloorConflict(
            f"There is a {existing.label} list already.", code="duplicate_list", field="stakes"
        )
    if existing is not None:
        return _set_active(existing, active=True, by=by, reason=reason)
    created = WaitingList.objects.create(game=game, stakes=stakes, created_by=acting_user(by))
    record_change(instance=created, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(created))
    return created


@service
def close_list(*, waiting_list: WaitingList, by: User, reason: str = "") -> WaitingList:
    """Close a list (it takes nobody new); refused while players are on it (``players_waiting``)."""
    waiting_list = lock_lists([waiting_list.pk])[waiting_list.pk]
    places, _ = settled(waiting_list, timezone.now())
    if places.order:
        raise FloorConflict(
            f"{len(places.order)} player(s) are on the {waiting_list.label} list: seat or remove them first.",
            code="players_waiting",
        )
    return _set_active(waiting_list, active=False, by=by, reason=reason)


def _set_active(waiting_list: WaitingList, *, active: bool, by: User, reason: str) -> WaitingList:
    """Open (``active``) or close a list, with its row in the configuration history."""
    before = snapshot(waiting_list)
    waiting_list.is_active = active
    waiting_list.save(update_fields=["is_active"])
    record_change(
        instance=waiting_list,
        action=ConfigAction.OPEN if active else ConfigAction.CLOSE,
        by=by,
        reason=reason,
        before=before,
        after=snapshot(waiting_list),
    )
    return waiting_list


@service
def set_board_alias(*, player: Player, alias: str, by: User) -> Player:
    """The name the room's board shows for ``player`` (blank: first name and initial): a change to
    the player's record like any other (:func:`tables.services.update_player`, which logs it in
    the change log; the board is what the room shows in public)."""
    return update_player(player=player, board_alias=alias, by=by, reason="board name")


# --- The room's settings -----------------------------------------------------------------------------

SETTINGS_FIELDS = (
    "call_in_minutes",
    "call_minutes",
    "missed_call_policy",
    "move_down_places",
    "table_changes_first",
    "interest_players",
    "interest_by_game",
)


def _interest_by_game(value: object) -> dict[str, int]:
    if not isinstance(value, dict):
        raise FloorValidationError(
            "Players to open a game: a mapping of game to players.", field="interest_by_game"
        )
    known = set(Game.objects.values_list("slug", flat=True))
    result: dict[str, int] = {}
    for slug, players in value.items():
        if slug not in known:
            raise FloorValidationError(f"There is no game {slug!r}.", field="interest_by_game")
        if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= 10:
            raise FloorValidationError(
                f"Players to open {slug}: a whole number from {MIN_PLAYERS} to 10.", field="interest_by_game"
            )
        result[str(slug)] = players
    return result


@service
def update_list_settings(*, by: User, reason: str = "", **changes: Any) -> WaitingListSettings:
    """Change the room's list settings (only the fields given; ``SETTINGS_FIELDS``); recorded in the
    configuration history. Raises FloorValidationError naming the field out of range."""
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise FloorValidationError(f"Unknown setting {sorted(unknown)[0]}.", field=sorted(unknown)[0])
    row, _ = WaitingListSettings.objects.select_for_update().get_or_create(
        pk=WaitingListSettings.SINGLETON_ID
    )
    before = snapshot(row)
    if "interest_by_game" in changes:
        changes["interest_by_game"] = _interest_by_game(changes["interest_by_game"])
    if "missed_call_policy" in changes:
        choice(MissedCallPolicy, changes["missed_call_policy"], "missed_call_policy")
    for name, value in changes.items():
        numeric = name not in ("table_changes_first", "missed_call_policy", "interest_by_game")
        if numeric and (isinstance(value, bool) or not isinstance(value, int)):
            raise FloorValidationError(f"{name}: a whole number.", field=name)
        if name == "table_changes_first" and not isinstance(value, bool):
            raise FloorValidationError(f"{name}: true or false.", field=name)
        setattr(row, name, value)
    try:
        row.full_clean(exclude=["updated_by"])
    except ValidationError as exc:
        errors = {name: "; ".join(messages) for name, messages in exc.message_dict.items()}
        field, message = next(iter(errors.items()))
        raise FloorValidationError(f"{field}: {message}", field=field, errors=errors) from None
    row.updated_at = timezone.now()
    row.updated_by = acting_user(by)
    row.save()
    record_change(
        instance=row, action=ConfigAction.UPDATE, by=by, reason=reason, before=before, after=snapshot(row)
    )
    return row

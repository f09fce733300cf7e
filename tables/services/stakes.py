"""Stakes: creating them from :data:`STAKES_FIELDS`, checked by
:func:`tables.validators.stakes_problems` (stakes are never edited once used: make new ones); the
stakes of the same limits with another kill (:func:`stakes_with_kill`)."""

from __future__ import annotations

from typing import Any

from casino.core.db import service
from tables.choices import KillType
from tables.errors import (
    FloorConflict,
    InvalidStakes,
)
from tables.history import record_change, snapshot
from tables.models import ConfigAction, Stakes
from tables.services.common import User
from tables.validators import (
    stakes_problems,
)

STAKES_FIELDS = (
    "structure",
    "small_bet_cents",
    "big_bet_cents",
    "alt_small_bet_cents",
    "alt_big_bet_cents",
    "buy_in_min_cents",
    "buy_in_max_cents",
    "kill",
    "point_cents",
)


@service
def create_stakes(*, code: str, by: User = None, reason: str = "", **fields: Any) -> Stakes:
    """New stakes (see :class:`tables.models.Stakes` for what each structure needs).

    ``fields`` are the :data:`STAKES_FIELDS`; ``kill`` defaults to none. Raises
    :class:`InvalidStakes` for an inconsistent definition (e.g. a kill at no limit).
    """
    unknown = set(fields) - set(STAKES_FIELDS)
    if unknown:
        raise InvalidStakes(f"Unknown stakes fields: {', '.join(sorted(unknown))}.")
    code = (code or "").strip()
    if not code:
        raise InvalidStakes("Stakes need a code.", field="code")
    if Stakes.objects.filter(code=code).exists():
        raise FloorConflict(f"Stakes {code} already exist.", code="duplicate_code", field="code")
    stakes = Stakes(code=code, **fields)
    problems = stakes_problems(stakes)
    if problems:
        field, message = next(iter(problems.items()))
        raise InvalidStakes(message, field=field, errors=problems)
    stakes.save()
    record_change(instance=stakes, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(stakes))
    return stakes


_KILL_SUFFIXES = {"none": "", "half": "-half", "full": "-full"}


def stakes_with_kill(*, stakes: Stakes, kill: str, by: User = None, reason: str = "") -> Stakes:
    """The stakes of ``stakes``' limits with the kill ``kill`` (none, half, full): ``stakes``
    itself when its kill is that; else the active stakes with the same structure and amounts and
    that kill; else new stakes made for it (code: the limits' code with ``-half``/``-full``, written
    to the history). The floor chooses a table's kill this way: stakes are never edited once used.
    Raises InvalidStakes for a kill the structure doesn't allow (004: none at pot limit, no limit)."""
    if kill not in KillType.values:
        raise InvalidStakes(f"Unknown kill {kill!r}: none, half or full.", field="kill")
    if stakes.kill == kill:
        return stakes
    same = {name: getattr(stakes, name) for name in STAKES_FIELDS if name != "kill"}
    found = Stakes.objects.filter(kill=kill, is_active=True, **same).order_by("code").first()
    if found is not None:
        return found
    base = stakes.code
    for suffix in _KILL_SUFFIXES.values():
        if suffix and base.endswith(suffix):
            base = base.removesuffix(suffix)
            break
    code = f"{base}{_KILL_SUFFIXES[kill]}"[:40]
    number = 2
    while Stakes.objects.filter(code=code).exists():
        code = f"{base}{_KILL_SUFFIXES[kill]}-{number}"[:40]
        number += 1
    return create_stakes(code=code, by=by, reason=reason or "kill chosen for a table", **same, kill=kill)

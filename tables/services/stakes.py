"""Stakes: creating them from :data:`STAKES_FIELDS`, checked by
:func:`tables.validators.stakes_problems` (stakes are never edited once used: make new ones)."""

from __future__ import annotations

from typing import Any

from casino.core.db import service
from tables.errors import (
    FloorConflict,
    InvalidStakes,
)
from tables.history import record_change, snapshot
from tables.models import (
    ConfigAction,
    Stakes,
)
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

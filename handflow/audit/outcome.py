"""What the replay audit finds and says: the kinds of difference (:class:`ReplayCheck`), one
difference (:class:`ReplayDifference`), an audit's outcome (:class:`ReplayOutcome`), and the
constants and the ledger line the other modules of :mod:`handflow.audit` share."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.db import models

CHUNK_HANDS = 4000
"""Hand ids read per chunk: three statements per chunk, a few megabytes of rows."""

MAX_DIFFERENCES = 1000
"""Differences kept (and stored) per audit; the count of all of them is kept too."""

POT = "pot"  # the hand's pot account, in a ledger line

Line = tuple[int | str, int]
"""An entry as the audit compares it: ``(player id or POT, cents)``."""


class ReplayCheck(models.TextChoices):
    """What a difference is about."""

    INPUT_DIGEST = "input_digest", "The stored input is not the input that was read (its digest differs)"
    ENGINE_REFUSED = "engine_refused", "The engine refuses the stored input"
    ENGINE_RESULT = "engine_result", "Re-deciding the stored input gives another result"
    POSTINGS = "postings", "The re-decided result gives other ledger lines than those stored"
    LEDGER = "ledger", "The settlement transaction's entries are not the stored ledger lines"


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayDifference:
    """One failed comparison of one hand (``check``: a :class:`ReplayCheck` value)."""

    hand_id: int
    table_number: int
    hand_number: int
    check: str
    detail: str

    @property
    def message(self) -> str:
        return f"Table {self.table_number} hand {self.hand_number} (id {self.hand_id}): {self.detail}"

    def as_problem(self) -> dict[str, Any]:
        """The difference as a stored problem (``IntegrityCheck.problems``), like the ledger's."""
        return {
            "code": f"replay_{self.check}",
            "message": self.message,
            "hand_id": self.hand_id,
            "table": self.table_number,
            "hand": self.hand_number,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """What an audit compared and every difference it found (at most ``MAX_DIFFERENCES`` kept;
    ``difference_count`` counts them all)."""

    date_from: dt.date
    date_to: dt.date
    started_at: dt.datetime
    finished_at: dt.datetime
    seconds: float
    hands: int
    transactions: int
    entries: int
    differences: tuple[ReplayDifference, ...]
    difference_count: int
    workers: int

    @property
    def ok(self) -> bool:
        return self.difference_count == 0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def period(self) -> str:
        first, last = self.date_from.isoformat(), self.date_to.isoformat()
        return first if first == last else f"{first} to {last}"

    def summary(self) -> str:
        """One line for people: the period, the hands and the speed, and what was found."""
        found = (
            "no difference"
            if self.ok
            else f"{self.difference_count} difference(s) in {len({d.hand_id for d in self.differences})}"
            f"{'+' if self.difference_count > len(self.differences) else ''} hand(s)"
        )
        return (
            f"Replay audit of {self.period}: {self.hands:,} settled hands re-decided, "
            f"{self.transactions:,} settlements and {self.entries:,} entries compared in "
            f"{self.seconds:.1f} s ({self.hands_per_second:,.0f} hands/s, {self.workers} process(es)): "
            f"{found}."
        )

"""A table's chip rules: buy-in, rebuys, and the chips a player needs to be dealt in (pure).

Contracts (see docs/hand-flow.md for the sources of each choice):

* **Minimum buy-in** (a *full* buy-in): pot limit and no limit, the stakes' ``buy_in_min_cents``
  (RULINGS §6); limit, the stakes' ``buy_in_min_cents`` when the stakes state one, else ten big
  bets (ten times the larger bet of the limit, or of its second limit pair); points (Chinese and
  Taiwanese poker), 20 points (004 Chinese poker rule 1; Taiwanese poker has no seed rule and
  follows it).
* **Maximum**: pot limit and no limit, ``buy_in_max_cents`` (None: no max) caps the player's
  chips after any purchase; other structures have none.
* **Short rebuy**: a rebuy below the minimum, of at least half of it (10 points at points
  tables, 004 rule 1; RRoP "one short buy" after a full buy-in at limit tables); one per
  session. None at pot-limit and no-limit tables: their posted buy-in range holds for every
  purchase, rebuys included (RULINGS §6).
* **To be dealt in**: the chips in play after the collection fee must be at least one chip (pot
  games) or 9 points (points games, 004 rule 2, RULINGS §3).
* Every amount is a whole number of the table's chips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casino.core.money import format_cents

# The numbers are the floor's vocabulary (tables.choices): the validators' fee warnings read the
# same minimum buy-in without importing this module.
from tables.choices import (
    BIG_BET_STRUCTURES,
    LIMIT_MIN_BIG_BETS,
    POINTS_BUY_IN,
    POINTS_SHORT_REBUY,
    POINTS_TO_PLAY,
    Structure,
)
from tables.errors import BuyInRefused

if TYPE_CHECKING:
    from tables.models import Stakes


#: A buy-in or rebuy of more than this many of the table's minimum buy-ins (at a table with no
#: maximum, or a maximum above it) is asked about before it is sold (``confirm=1``); the setting
#: ``FLOOR_CONFIRM_BUY_INS`` overrides it.
LARGE_AMOUNT_BUY_INS = 20


def _round_up(cents: int, chip: int) -> int:
    return -(-cents // chip) * chip


@dataclass(frozen=True, slots=True)
class ChipRules:
    """The chip rules of one table (all cents)."""

    chip_cents: int
    minimum_cents: int
    maximum_cents: int | None
    short_minimum_cents: int
    to_be_dealt_in_cents: int
    minimum_reason: str
    # Pot limit and no limit: the posted range holds for rebuys too (no short rebuy).
    range_holds_for_rebuys: bool = False

    def as_dict(self) -> dict[str, int | str | None]:
        return {
            "chip_cents": self.chip_cents,
            "buy_in_min_cents": self.minimum_cents,
            "buy_in_max_cents": self.maximum_cents,
            "short_rebuy_min_cents": self.short_minimum_cents,
            "to_be_dealt_in_cents": self.to_be_dealt_in_cents,
            "minimum_reason": self.minimum_reason,
        }

    def _check_amount(self, amount: int) -> None:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise BuyInRefused(
                f"The amount must be a positive number of cents, not {amount!r}.", field="amount_cents"
            )
        if amount % self.chip_cents:
            raise BuyInRefused(
                f"{format_cents(amount)} is not a whole number of {format_cents(self.chip_cents)} chips.",
                field="amount_cents",
            )

    def _check_maximum(self, amount: int, chips_before: int) -> None:
        if self.maximum_cents is not None and chips_before + amount > self.maximum_cents:
            room = max(self.maximum_cents - chips_before, 0)
            raise BuyInRefused(
                f"The most a player may have at this table is {format_cents(self.maximum_cents)}; "
                f"with {format_cents(chips_before)} in play, at most {format_cents(room)} more.",
                field="amount_cents",
            )

    def check_buy_in(self, *, amount: int, chips_before: int) -> None:
        """Raise :class:`BuyInRefused` unless ``amount`` is a valid first purchase of a session."""
        self._check_amount(amount)
        if amount < self.minimum_cents:
            raise BuyInRefused(
                f"The minimum buy-in is {format_cents(self.minimum_cents)} ({self.minimum_reason}).",
                field="amount_cents",
            )
        self._check_maximum(amount, chips_before)

    def classify_rebuy(self, *, amount: int, chips_before: int) -> bool:
        """Check a rebuy; return True when it is a *short* rebuy (below the minimum buy-in).

        Raises :class:`BuyInRefused` for an amount below the short minimum, not in whole chips,
        or above the maximum. Whether the session's short rebuy is still available is the
        caller's check (it needs the session's history).
        """
        self._check_amount(amount)
        if self.range_holds_for_rebuys and amount < self.minimum_cents:
            raise BuyInRefused(
                f"The {self.minimum_reason} holds for rebuys too: a rebuy is at least "
                f"{format_cents(self.minimum_cents)} (RULINGS §6).",
                field="amount_cents",
            )
        if amount < self.short_minimum_cents:
            raise BuyInRefused(
                f"A rebuy is at least {format_cents(self.short_minimum_cents)} (the one short rebuy); "
                f"a full rebuy is {format_cents(self.minimum_cents)} or more.",
                field="amount_cents",
            )
        self._check_maximum(amount, chips_before)
        return amount < self.minimum_cents

    def can_be_dealt_in(self, *, chips: int, fee: int) -> bool:
        """Whether a player with ``chips`` can pay ``fee`` and still have enough in play."""
        return chips - fee >= self.to_be_dealt_in_cents


def chip_rules(*, stakes: Stakes, chip_unit_cents: int) -> ChipRules:
    """The chip rules of a table at ``stakes`` with chips of ``chip_unit_cents``."""
    chip = chip_unit_cents
    if stakes.structure == Structure.POINTS:
        point = stakes.point_cents or chip
        return ChipRules(
            chip_cents=chip,
            minimum_cents=_round_up(POINTS_BUY_IN * point, chip),
            maximum_cents=None,
            short_minimum_cents=_round_up(POINTS_SHORT_REBUY * point, chip),
            to_be_dealt_in_cents=POINTS_TO_PLAY * point,
            minimum_reason=f"{POINTS_BUY_IN} points of {format_cents(point)}",
        )
    if stakes.structure in BIG_BET_STRUCTURES:
        minimum = _round_up(stakes.buy_in_min_cents or chip, chip)
        return ChipRules(
            chip_cents=chip,
            minimum_cents=minimum,
            maximum_cents=stakes.buy_in_max_cents,
            short_minimum_cents=minimum,
            to_be_dealt_in_cents=chip,
            minimum_reason=f"buy-in range of {stakes.label}",
            range_holds_for_rebuys=True,
        )
    if stakes.buy_in_min_cents:
        minimum, reason = stakes.buy_in_min_cents, f"the minimum stated for {stakes.label}"
    else:
        big_bet = max(stakes.big_bet_cents or 0, stakes.alt_big_bet_cents or 0) or chip
        minimum, reason = (
            LIMIT_MIN_BIG_BETS * big_bet,
            f"{LIMIT_MIN_BIG_BETS} big bets of {format_cents(big_bet)}",
        )
    minimum = _round_up(minimum, chip)
    return ChipRules(
        chip_cents=chip,
        minimum_cents=minimum,
        maximum_cents=None,
        short_minimum_cents=_round_up(minimum // 2 or chip, chip),
        to_be_dealt_in_cents=chip,
        minimum_reason=reason,
    )


def large_amount_cents(*, minimum_cents: int, maximum_cents: int | None, buy_ins: int) -> int | None:
    """The amount above which a buy-in or rebuy is asked about first: ``buy_ins`` minimum buy-ins,
    or None at a table whose maximum is at or below that (the service refuses above the maximum,
    naming it)."""
    large = minimum_cents * buy_ins
    return None if maximum_cents is not None and maximum_cents <= large else large

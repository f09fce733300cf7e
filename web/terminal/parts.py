"""The dealer terminal's screen in parts: the frozen dataclasses :func:`web.terminal.screen.terminal_screen`
returns (the kill banners, the seats before the deal, the pad's keys, the showdown entry, the hand
just finished, the hand in progress or the next hand, and the whole :class:`TerminalScreen`).
Values only: :mod:`web.terminal.screen` reads them from the database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.utils.safestring import SafeString

from handflow.services import DealPlan
from tables.models import DealerShift, Game, Table
from web.terminal.entry import CardField, NextHandChoice, Refusal
from web.terminal.presenters import ReadingView, SeatNet

# --- The parts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class KillBanner:
    """The kill state in the strip: the seat that kills (or holds the kill button), whether this
    hand (or the next) is a kill hand, its blind and its raised limits. ``wins``: the pots the
    holder has won outright in a row (one: it holds the kill button, and the next pot it wins
    outright makes a kill hand; RULINGS §2)."""

    seat: int
    is_kill_hand: bool
    blind_cents: int | None
    pct: int
    limits: str
    wins: int = 0


@dataclass(frozen=True)
class SeatBeforeDeal:
    """A seat between hands: who sits there, chips, the next hand's button, the fee, whether dealt
    in and why not."""

    seat: int
    player_name: str
    chips_cents: int | None
    is_button: bool
    is_kill: bool
    holds_kill_button: bool
    fee_cents: int | None
    position: int | None
    left_out: str
    rotates_out: bool
    sits_out: bool


@dataclass(frozen=True)
class PadKey:
    """A key of the put-in pad: it adds ``cents`` to the put-in being entered (``label`` on the key,
    ``what`` the bet it is, at a limit table)."""

    cents: int
    label: str
    what: str = ""


@dataclass(frozen=True)
class SeatEntry:
    """A seat of the showdown entry: its card fields and what was entered, the put-in it starts
    from (``base_cents``), its taps (folded, surrendered...) and its clean sweep declared."""

    seat: int
    player_name: str
    chips_cents: int
    is_button: bool
    is_kill: bool
    holds_kill_button: bool
    base_cents: int
    fields: tuple[CardField, ...]
    put_in: str
    put_in_bad: bool
    after_draw: str
    after_draw_bad: bool
    folded: bool
    #: Folded by the screen, not by a tap: the seat showed no cards once every other seat had all
    #: its cards (a pot game's mucked hand); a card tapped into it puts it back in.
    folded_auto: bool
    #: Put back in by the dealer (its "Folded" unticked, or its "All in" tapped): never read as
    #: folded for showing no cards; kept in the draft (``live_<seat>``) so a reload keeps it.
    live: bool
    checked_seven: bool
    declare: str
    declare_bad: bool
    declared: str
    declared_at: datetime | None
    surrender: bool
    fouled: bool


@dataclass(frozen=True)
class ShowdownEntry:
    """The showdown panel: the board(s), each seat's entry, the card grid and the put-in pad."""

    is_pot: bool
    boards: tuple[CardField, ...]
    seats: tuple[SeatEntry, ...]
    called: str
    active: str
    pad_target: str
    grid: SafeString
    joker: bool
    lowball: bool
    chinese: bool
    pad: tuple[PadKey, ...]
    chip_cents: int
    #: The entry drawn is a draft kept since the reading on the screen was made (it differs): the
    #: reading can't be confirmed until the entry is read again.
    changed_since_reading: bool = False

    @property
    def mucked(self) -> tuple[int, ...]:
        """The seats read as folded because they show no cards (:attr:`SeatEntry.folded_auto`)."""
        return tuple(s.seat for s in self.seats if s.folded and s.folded_auto)


@dataclass(frozen=True)
class LastHand:
    """The hand just finished, summed up between hands: each seat's chips change, or the misdeal
    (and whether its fees went back)."""

    number: int
    status: str
    void_reason: str
    fees_returned: bool
    net: tuple[SeatNet, ...]
    game: str


@dataclass(frozen=True)
class HandInProgress:
    """The screen during a hand: the hand (the terminal serializer's dict), the game played, the
    showdown entry, the reading to confirm, the kill."""

    hand: dict[str, Any]
    game: Game
    entry: ShowdownEntry
    reading: ReadingView | None
    kill: KillBanner | None
    #: The value of a point, where the game is played for points (Chinese and Taiwanese poker).
    point_cents: int | None


@dataclass(frozen=True)
class BetweenHands:
    """The screen between hands: the fee preview (or why there is none), the choice made, the seats,
    the games of dealer's choice, the boards of Taiwanese poker, the kill, the hand just finished."""

    plan: DealPlan | None
    plan_error: str
    #: Dealer's choice before the pick: the seat that has the button for the next hand, and picks.
    picker: int | None
    choice: NextHandChoice
    seats: tuple[SeatBeforeDeal, ...]
    games: tuple[Game, ...]
    game_note: str
    taiwanese: bool
    board_choices: range
    kill: KillBanner | None
    last: LastHand | None


@dataclass(frozen=True)
class TerminalScreen:
    """Everything the screen shows: the table, who is clocked in and who may do what, the refusal
    and notices, and either the hand in progress or the next hand (``part``)."""

    table: Table
    down: DealerShift | None
    on_duty_is_me: bool
    can_run: bool
    runs_any: bool
    may_deal: bool
    can_manage: bool
    refusal: Refusal | None
    misdeal_reasons: Sequence[tuple[Any, str]]
    sweeps: Sequence[tuple[str, str]]
    is_chinese: bool
    notices: tuple[tuple[str, str], ...]
    #: The dealers a floor manager may clock in (read between hands, for whoever runs any table).
    dealers: tuple[User, ...] | None
    part: HandInProgress | BetweenHands

    @property
    def in_progress(self) -> bool:
        return isinstance(self.part, HandInProgress)

    def template_context(self) -> dict[str, Any]:
        """The screen as the templates read it: its fields and its part's, by name (shallow: the
        parts stay objects, which the templates read by attribute)."""
        context = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "part"}
        context |= {f.name: getattr(self.part, f.name) for f in fields(self.part)}
        context["in_progress"] = self.in_progress
        return context

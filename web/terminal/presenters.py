"""The dealer terminal's words: a hand's reading as the dealer reads it aloud (who wins which pot
with what, each pair's points, each board's positions, the payments in settlement order), the
betting limits of a kill hand, and the note on the game picked.

Presenters only: they put what the hand flow and the engine said into words, and read nothing
from the database. The readings come typed with the hand (:class:`handflow.hand_view.HandView`),
and are said by the engine's one presenter (:mod:`poker.reading_words`), the one the hand history
uses too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from casino.core.money import format_cents
from handflow.services import HandView
from poker.errors import ShowdownError
from poker.games import GAME_RULES, rules_for
from poker.kill import kill_limits
from poker.reading_words import (
    PairWords,
    PositionWords,
    PotWords,
    ReadingWords,
    Said,
    SeatWords,
    postings_words,
    reading_words,
)
from tables.models import Game, Table

# --- The reading panel --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatNet:
    """A seat's chips change (``name``: the player's, where the screen says it)."""

    seat: int
    cents: int
    name: str = ""


@dataclass(frozen=True)
class ReadingView:
    """The reading panel: the revision and its status, the settlement's ledger lines in settlement
    order (``payments``: a player-to-player payment says what was ``due`` and whether the payer's
    chips ``capped`` it), each seat's net, and the reading in words (``words``); ``kind`` says
    which parts the panel draws (``pot``, ``chinese``, ``taiwanese``)."""

    revision: int
    status: str
    payments: tuple[Said, ...]
    net: tuple[SeatNet, ...]
    words: ReadingWords

    @property
    def kind(self) -> str:
        return str(self.words.kind)

    @property
    def pots(self) -> tuple[PotWords, ...]:
        """Pot games: main pot first, who wins which share with what, the odd chips."""
        return self.words.pots

    @property
    def returned(self) -> tuple[Said, ...]:
        """Pot games: the chips given back."""
        return self.words.returned

    @property
    def hands(self) -> tuple[SeatWords, ...]:
        """Pot games: each seat whose hand was read, by seat."""
        return tuple(s for s in self.words.seats if s.text)

    @property
    def seats(self) -> tuple[SeatWords, ...]:
        """Chinese and Taiwanese poker: each seat's hand(s) in words, its points and its net."""
        return self.words.seats

    @property
    def pairs(self) -> tuple[PairWords, ...]:
        """Chinese poker: each pair's points, segment by segment."""
        return self.words.pairs

    @property
    def positions(self) -> tuple[PositionWords, ...]:
        """Taiwanese poker: each board's positions, who wins them and who pays."""
        return self.words.positions


def names(view: HandView) -> dict[int, str]:
    """Each dealt seat's player name in the hand of ``view``."""
    return {hp.seat.number: hp.player.name for hp in view.players}


def reading_view(view: HandView, seat_names: Mapping[int, str], game: Game) -> ReadingView | None:
    """The reading panel for the hand of ``view``, its players named as ``seat_names`` says, or
    None without a reading (or with one the engine can't read back: nothing is shown rather than a
    guess)."""
    result = view.result
    if result is None:
        return None
    try:
        typed, postings = view.reading, view.postings
        if typed is None or postings is None:
            return None
        words = reading_words(typed, seat_names, rules=rules_for(game.slug), money=format_cents)
    except ShowdownError:
        return None
    return ReadingView(
        revision=result.revision,
        status=result.status,
        payments=postings_words(postings, seat_names),
        net=tuple(
            SeatNet(seat=seat, cents=cents, name=seat_names.get(seat, ""))
            for seat, cents in postings.seat_nets
        ),
        words=words,
    )


# --- The kill and the game, in words -------------------------------------------------------------------


def limits_text(table: Table, pct: int) -> str:
    """The betting limits of a hand at ``pct`` percent (100: no kill; a kill hand raises them, as
    the engine's ``kill_limits`` says), as the kill banner says them: ``$4-$8``; blank at a table
    without a small and a big bet."""
    small, big = table.stakes.small_bet_cents, table.stakes.big_bet_cents
    if not small or not big:
        return ""
    kind = table.stakes.kill if pct != 100 else "none"
    small, big = kill_limits(small, big, kind, table.chip_unit_cents)
    return f"{format_cents(small)}-{format_cents(big)}"


def game_note(table: Table, game: Game | None) -> str:
    """What the dealer should know of the game picked (004 lowball rule 1: the joker)."""
    played = game if table.game.is_dealers_choice else table.game
    rules = GAME_RULES.get(played.slug) if played is not None else None
    if played is None or rules is None or not rules.joker:
        return ""
    if table.game.is_dealers_choice:
        return f"{played.name} at dealer's choice is dealt without the joker (004 lowball rule 1)."
    return f"{played.name} is dealt with the joker (004 lowball rule 1)."

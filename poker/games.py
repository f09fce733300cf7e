"""What differs by game, said once: :class:`GameRules`, looked up by the game's slug.

The floor's :class:`tables.models.Game` rows name their game by ``slug``, which is the engine's
game name (``"holdem"``, ``"chinese-poker"``, ...; ``"dealers-choice"`` has no showdown of its own:
each of its hands is one of the pot games).  :func:`rules_for` gives the engine's facts about it,
so a reader asks ``rules.max_boards`` or ``rules.joker`` instead of comparing game names:

* how the engine decides it (:class:`EngineKind`: pots, Chinese or Taiwanese poker) and, for a
  pot game, its :class:`poker.showdown.GameSpec` (cards, board, high/low, stud odd chips, the
  joker, the sevens rule), which stays the one place those are said;
* what a dealer enters (:attr:`GameRules.player_fields`, :attr:`GameRules.hand_fields`, the set
  hands' rows and their card counts) and what the floor adds to the engine input (stacks, the
  point value, the chip);
* boards agreed before the deal and how many at most, the clean sweeps one may declare, the rule
  set the house plays, surrender and the house foul, how many players the engine takes.

What only the floor knows (which misdeal reasons apply, fee options, the stakes a table may
have) is the floor's, keyed on the same slug.  The kill multipliers are the stakes', in
:class:`poker.kill.KillKind`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from . import chinese, taiwanese
from .chinese_rules import RULE_SETS
from .errors import ShowdownError
from .showdown import POT_GAMES, GameSpec, LowRule
from .sweeps import SweepKind

__all__ = [
    "DEALERS_CHOICE",
    "GAME_RULES",
    "MAX_BOARDS",
    "EngineKind",
    "GameRules",
    "SetRow",
    "rules_for",
]


class EngineKind(StrEnum):
    """How the engine decides a game, which is also the shape of its reading
    (:mod:`poker.reading`)."""

    POT = "pot"  # main and side pots, high/low shares (poker.showdown)
    CHINESE = "chinese"  # pairwise points and payments (poker.chinese)
    TAIWANESE = "taiwanese"  # board by board, position by position (poker.taiwanese)


@dataclass(frozen=True, slots=True)
class SetRow:
    """One of the hands a player sets (Chinese poker's front, middle, back; Taiwanese poker's
    top, middle, bottom) and how many cards it holds."""

    name: str
    cards: int


#: Taiwanese poker: the most boards agreed before the deal.  RULINGS §5 says "several boards
#: agreed before the deal" without a limit; the house deals at most three (docs/hand-flow.md).
MAX_BOARDS: Final = 3

#: The slug of the floor's dealer's choice game.
DEALERS_CHOICE: Final = "dealers-choice"

#: Seed 004's Seven Card Stud Choice: the button picks stud high, stud hi-lo or razz for the hand.
STUD_CHOICE: Final = "stud-choice"

#: The card room's Chinese poker rule set (RULINGS §3, the default).
_CHINESE_RULE_SET: Final = "house"

_POT_PLAYER_FIELDS: Final = ("seat", "cards", "put_in", "folded")
#: Lowball's sevens rule (004 lowball rule 2): the engine refuses these in any other game.
_SEVENS_FIELDS: Final = ("put_in_after_draw", "checked_seven")


@dataclass(frozen=True, slots=True)
class GameRules:
    """The engine's facts about one game.

    Attributes:
        slug: the game's name in the engine and the floor's ``Game.slug``.
        engine: how the engine decides it; None for dealer's choice (no showdown of its own).
        spec: a pot game's reading rules (None for the others).
        rows: the hands a player sets, in order (none in pot games).
        hand_cards: the cards of a player's hand (pot games: the spec's; Chinese poker 13;
            Taiwanese poker 7; dealer's choice 0).
        board_cards: community cards per board (hold'em and Omaha 5, Taiwanese poker 5 per
            board, else 0).
        max_boards: the most boards agreed before the deal (Taiwanese poker); 0: the game
            agrees none.
        sweeps: the clean sweeps a player may declare under :attr:`rule_set`, most valuable
            kinds as the rule set lists them.
        rule_set: the rule set the house plays (Chinese poker), else None.
        surrender: a player may surrender (Chinese poker under the house rules).
        house_foul: the dealer may mark a hand fouled by the house (004 Chinese poker rule 8).
        played_for_points: played for points at points stakes (the point's value comes from
            the stakes, each player's stack from the ledger); pot games are not.
        chip_in_input: the engine input carries the table's chip (pot games, Taiwanese poker).
        player_fields: the keys a dealer's player object may have (the engine's player keys
            the floor doesn't add), in the order the engine input lists them.
        hand_fields: the top-level keys of a dealer's entry besides ``players``.
        most_players: the most hands the engine settles (None: as many as the cards allow).
        dealers_choice: the game is dealer's choice (each hand one of :attr:`choices`).
        choice_of: a choice game's games by slug (seed 004's Seven Card Stud Choice: stud high,
            stud hi-lo, razz); empty for dealer's choice, whose button picks any pot game.
    """

    slug: str
    engine: EngineKind | None
    spec: GameSpec | None
    rows: tuple[SetRow, ...]
    hand_cards: int
    board_cards: int
    max_boards: int
    sweeps: tuple[SweepKind, ...]
    rule_set: str | None
    surrender: bool
    house_foul: bool
    played_for_points: bool
    chip_in_input: bool
    player_fields: tuple[str, ...]
    hand_fields: tuple[str, ...]
    most_players: int | None
    dealers_choice: bool = False
    choice_of: tuple[str, ...] = ()

    @property
    def has_showdown(self) -> bool:
        """Whether the engine decides this game's hands (all but dealer's choice)."""
        return self.engine is not None

    @property
    def is_pot_game(self) -> bool:
        return self.engine is EngineKind.POT

    @property
    def has_board(self) -> bool:
        """One board of community cards, entered with the hand (hold'em and Omaha)."""
        return self.board_cards > 0 and not self.max_boards

    @property
    def agrees_boards(self) -> bool:
        """Boards are agreed before the deal (Taiwanese poker)."""
        return self.max_boards > 0

    @property
    def declares_sweeps(self) -> bool:
        return bool(self.sweeps)

    @property
    def joker(self) -> bool:
        """The game may be dealt with the joker ``JK`` (lowball)."""
        return self.spec is not None and self.spec.joker

    def joker_dealt(self, *, at_dealers_choice: bool) -> bool:
        """Whether the joker is in the deck for a hand of this game: only a game with the joker
        dealt as the table's own game (004 lowball rule 1: no joker is added at dealer's choice)."""
        return self.joker and not at_dealers_choice

    @property
    def sevens(self) -> bool:
        """Lowball's sevens rule applies (004 lowball rule 2: ``put_in_after_draw``,
        ``checked_seven``)."""
        return self.spec is not None and self.spec.sevens

    @property
    def odd_chips_by_suit(self) -> bool:
        """Stud games give the odd chip of a split by card suit; the others clockwise from the
        button."""
        return self.spec is not None and self.spec.stud

    @property
    def low_qualifies(self) -> bool:
        """A hi-lo game with the 8-or-better qualifier: a pot whose seats have no qualifying low
        goes whole to the high hand."""
        return self.spec is not None and self.spec.high and self.spec.low is LowRule.EIGHT

    @property
    def choices(self) -> tuple[GameRules, ...]:
        """A choice game: the games a hand may be (its :attr:`choice_of`, else every pot game);
        else none."""
        if not self.dealers_choice:
            return ()
        if self.choice_of:
            return tuple(GAME_RULES[slug] for slug in self.choice_of)
        return tuple(r for r in GAME_RULES.values() if r.is_pot_game)

    def entry_problem(self, entry: Mapping[str, Any]) -> str | None:
        """A data-entry slip in a dealer's entry that the engine would not refuse but read as
        something else, as a message naming the seat, or None.  Chinese poker: a wrong card count
        (the engine would foul it, RULINGS §3; :func:`poker.chinese.count_problems`)."""
        if self.engine is EngineKind.CHINESE:
            return chinese.count_problems(entry)
        return None


def _pot_rules(spec: GameSpec) -> GameRules:
    return GameRules(
        slug=spec.name,
        engine=EngineKind.POT,
        spec=spec,
        rows=(),
        hand_cards=spec.hole,
        board_cards=spec.board,
        max_boards=0,
        sweeps=(),
        rule_set=None,
        surrender=False,
        house_foul=False,
        played_for_points=False,
        chip_in_input=True,
        player_fields=_POT_PLAYER_FIELDS + (_SEVENS_FIELDS if spec.sevens else ()),
        hand_fields=("board",) if spec.board else (),
        most_players=None,
    )


def _chinese_rules() -> GameRules:
    rules = RULE_SETS[_CHINESE_RULE_SET]
    rows = tuple(
        SetRow(str(name), count) for name, count in zip(chinese.SET_ROWS, chinese.SET_SIZES, strict=True)
    )
    return GameRules(
        slug=chinese.GAME,
        engine=EngineKind.CHINESE,
        spec=None,
        rows=rows,
        hand_cards=sum(chinese.SET_SIZES),
        board_cards=0,
        max_boards=0,
        sweeps=tuple(rules.sweep_values),
        rule_set=rules.name,
        surrender=rules.surrender_points is not None,
        house_foul=True,
        played_for_points=True,
        chip_in_input=False,
        player_fields=("seat", *chinese.SET_ROWS, "cards", "declare", "surrender", "fouled"),
        hand_fields=(),
        most_players=chinese.MAX_PLAYERS,
    )


def _taiwanese_rules() -> GameRules:
    rows = tuple(SetRow(str(position), count) for position, count in taiwanese.SET_COUNTS)
    return GameRules(
        slug=taiwanese.GAME,
        engine=EngineKind.TAIWANESE,
        spec=None,
        rows=rows,
        hand_cards=sum(row.cards for row in rows),
        board_cards=taiwanese.BOARD_CARDS,
        max_boards=MAX_BOARDS,
        sweeps=(),
        rule_set=None,
        surrender=False,
        house_foul=False,
        played_for_points=True,
        chip_in_input=True,
        player_fields=("seat", *(row.name for row in rows)),
        hand_fields=("board", "boards"),
        most_players=taiwanese.MAX_PLAYERS,
    )


_DEALERS_CHOICE_RULES: Final = GameRules(
    slug=DEALERS_CHOICE,
    engine=None,
    spec=None,
    rows=(),
    hand_cards=0,
    board_cards=0,
    max_boards=0,
    sweeps=(),
    rule_set=None,
    surrender=False,
    house_foul=False,
    played_for_points=False,
    chip_in_input=False,
    player_fields=(),
    hand_fields=(),
    most_players=None,
    dealers_choice=True,
)

_STUD_CHOICE_RULES: Final = replace(
    _DEALERS_CHOICE_RULES, slug=STUD_CHOICE, choice_of=("stud", "stud-hi-lo", "razz")
)

#: Every game the engine knows, by slug, in the engine's order (pot games first).
GAME_RULES: Final[Mapping[str, GameRules]] = {
    r.slug: r
    for r in (
        *(_pot_rules(spec) for spec in POT_GAMES.values()),
        _chinese_rules(),
        _taiwanese_rules(),
        _STUD_CHOICE_RULES,
        _DEALERS_CHOICE_RULES,
    )
}


def rules_for(slug: str) -> GameRules:
    """The rules of the game named ``slug`` (a ``Game.slug``).  Raises ShowdownError for a game
    the engine doesn't know."""
    rules = GAME_RULES.get(slug) if isinstance(slug, str) else None
    if rules is None:
        raise ShowdownError(f"unknown game {slug!r}; known games: {', '.join(GAME_RULES)}")
    return rules

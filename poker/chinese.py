"""Chinese poker showdowns: setting checks, clean sweeps, pairwise points, capped settlement.

Rules: RULINGS sections 3 (the ``house`` rule set, the default) and 4 (the other rule sets),
read through :class:`.chinese_rules.ChineseRules` -- one code path, options as data.  Where
the seeds and RULINGS are silent, the choices are in ``docs/chinese-taiwanese.md``.

    JSON mapping --parse_chinese--> ChineseRequest (frozen, validated)
                 --settle_chinese--> ChineseResult (frozen)
                 --ChineseResult.to_json--> JSON mapping (docs/showdown-json.md, "Chinese poker")

:func:`count_problems` is the dealer terminal's data-entry check (wrong card counts), apart
from the engine, which reads a wrong count as a foul (RULINGS 3).

Each player ends the showdown in one of four states:

``set``
    front 3, middle 5, back 5, back >= middle >= front (with ``lowball-middle`` only
    back > front); straights and flushes do not count in the front, which is compared with
    the middle by category and then rank by rank (:func:`.hands.three_card_high`).
``fouled``
    wrong counts, wrong order, a card twice in the hand, an unset hand that declares nothing,
    a declared sweep that the 13 cards do not hold, or a hand the house fouled (input
    ``"fouled": true``, 004 rule 8: a hand with a wrong number of cards "may be fouled").
    Pays each set opponent what being scooped costs under the rule set plus that opponent's
    bonuses; two fouled hands push.
``sweep``
    a declared clean sweep / natural that the 13 cards hold (verified by search,
    :mod:`.sweeps`); the most valuable sweep the cards hold counts.  Collects its value from
    every other player and pays none of their points; between two sweeps the higher collects
    its value from the lower, equal values push (002 sets compare two of the same kind).
``surrendered``
    pays each opponent the rule set's surrender points (not to a fouled hand: they push); a
    sweep still collects from it.

Pairs are taken P1..P4 from the button (P1 = the button player, then clockwise = ascending
seat, wrapping): (P1,P2), (P1,P3), (P1,P4), (P2,P3), (P2,P4), (P3,P4); pairs with a sweep are
settled first, then the others, each payment capped (:mod:`.settlement`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ._fast import maker
from .cards import Card, parse_card_list
from .chinese_rules import (
    SEGMENTS,
    BonusHand,
    ChineseRules,
    NaturalTies,
    Overall,
    RulesError,
    resolve_rules,
)
from .errors import ShowdownError
from .hands import Category, best_high, best_low_a5, three_card_high
from .settlement import CapLedger, Payment
from .sweeps import HandSummary, SweepKind, find_sweeps, parse_sweep_kind, summarise, sweep_tiebreak

__all__ = [
    "GAME",
    "HOUSE_FOUL",
    "SET_ROWS",
    "SET_SIZES",
    "ChinesePlayerIn",
    "ChineseRequest",
    "ChineseResult",
    "Matchup",
    "MatchupPoints",
    "PlayerResult",
    "SegmentHand",
    "Status",
    "count_problems",
    "decide_chinese",
    "parse_chinese",
    "read_setting",
    "settle_chinese",
    "settlement_order",
]

GAME: Final = "chinese-poker"
MAX_PLAYERS: Final = 4
#: The ``foul`` reason of a hand the dealer marked ``"fouled": true``.
HOUSE_FOUL: Final = "fouled by the house (004 rule 8)"


class Status(StrEnum):
    SET = "set"
    FOULED = "fouled"
    SWEEP = "sweep"
    SURRENDERED = "surrendered"


# --------------------------------------------------------------------------------------
# Typed request
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChinesePlayerIn:
    """One player's input.

    Attributes:
        seat: the seat number.
        stack: chips in play at the start of the hand (cents); ``None``: no cap.
        front, middle, back: the set hand, or ``None`` for an unset hand.
        cards: all of the player's cards (the set hand's, or the unset 13).
        declare: the declared sweep; ``declare_any``: "any sweep the cards hold".
        surrender: the player surrendered.
        fouled: the house fouled the hand (004 rule 8); it plays as fouled whatever its cards
            (which may be partial or none), its declaration or its surrender.
    """

    seat: int
    stack: int | None
    front: tuple[Card, ...] | None
    middle: tuple[Card, ...] | None
    back: tuple[Card, ...] | None
    cards: tuple[Card, ...]
    declare: SweepKind | None = None
    declare_any: bool = False
    surrender: bool = False
    fouled: bool = False

    @property
    def declares(self) -> bool:
        return self.declare is not None or self.declare_any


@dataclass(frozen=True, slots=True)
class ChineseRequest:
    rules: ChineseRules
    point: int
    button: int
    players: tuple[ChinesePlayerIn, ...]


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SegmentHand:
    """How one segment reads (the cards are the player's input; a reading depends only on the
    ranks, and for five cards on whether they share a suit, so readings are shared).

    Attributes:
        value: comparison value, bigger wins (a lowball middle: the lower hand is bigger).
        name: what the dealer reads (``"Three of a kind, jacks"``, ``"5-4-3-2-A"``).
        category, ranks: the hand's category and significance-ordered ranks (for a lowball
            middle, A-2-3-4-5 reads as ace high, not a straight).
    """

    value: int
    name: str
    category: Category
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerResult:
    seat: int
    position: int  # 1 = the button player (P1)
    status: Status
    foul: str | None  # why the hand fouled
    declared: str | None  # what was declared
    sweep: SweepKind | None  # the sweep that counts
    sweep_value: int
    segments: tuple[SegmentHand, SegmentHand, SegmentHand] | None
    points: int
    net: int

    @property
    def fouled(self) -> bool:
        return self.status is Status.FOULED


@dataclass(frozen=True, slots=True)
class MatchupPoints:
    """Points of a pair from the first seat's side (negative: the first seat pays)."""

    front: int = 0
    middle: int = 0
    back: int = 0
    bonus: int = 0
    overall: int = 0
    sweep: int = 0
    scoop: int = 0  # the extra of scoop-double / home run
    surrender: int = 0

    @property
    def total(self) -> int:
        return (
            self.front
            + self.middle
            + self.back
            + self.bonus
            + self.overall
            + self.sweep
            + self.scoop
            + self.surrender
        )

    def to_json(self) -> dict[str, int]:
        return {
            "front": self.front,
            "middle": self.middle,
            "back": self.back,
            "bonus": self.bonus,
            "overall": self.overall,
            "sweep": self.sweep,
            "scoop": self.scoop,
            "surrender": self.surrender,
        }


@dataclass(frozen=True, slots=True)
class Matchup:
    seats: tuple[int, int]  # in settlement order (the earlier position first)
    sweep: bool  # settled in the sweep round
    points: MatchupPoints
    total: int  # points.total


@dataclass(frozen=True, slots=True)
class ChineseResult:
    rules: ChineseRules
    point: int
    players: tuple[PlayerResult, ...]  # in position order (P1 first)
    matchups: tuple[Matchup, ...]  # in settlement order
    payments: tuple[Payment, ...]  # in settlement order

    def to_json(self) -> dict[str, Any]:
        """The contract's output object (docs/showdown-json.md, "Chinese poker")."""
        players: dict[str, Any] = {}
        for p in self.players:
            segs = p.segments
            players[str(p.seat)] = {
                "fouled": p.status is Status.FOULED,
                "sweep": str(p.sweep) if p.sweep is not None else None,
                "segments": {
                    "front": segs[0].name if segs else None,
                    "middle": segs[1].name if segs else None,
                    "back": segs[2].name if segs else None,
                },
                "points": p.points,
                "net": p.net,
                "position": p.position,
                "status": str(p.status),
                "foul": p.foul,
                "declared": p.declared,
                "sweep_value": p.sweep_value,
            }
        return {
            "game": GAME,
            "rules": self.rules.name,
            "players": players,
            "matchups": [
                {
                    "seats": [m.seats[0], m.seats[1]],
                    "points": m.points.to_json(),
                    "total": m.total,
                    "kind": "sweep" if m.sweep else "pair",
                }
                for m in self.matchups
            ],
            "payments": [p.to_json() for p in self.payments],
        }


# Positional constructors that skip the frozen dataclasses' per-field object.__setattr__.
_new_player_in: Final = maker(ChinesePlayerIn)
_new_points: Final = maker(MatchupPoints)
_new_matchup: Final = maker(Matchup)
_new_result: Final = maker(PlayerResult)
_new_request: Final = maker(ChineseRequest)
_new_payment: Final = maker(Payment)
_new_chinese_result: Final = maker(ChineseResult)


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------

#: The hands a player sets, in order (their card counts: :data:`SET_SIZES`).
SET_ROWS: Final = ("front", "middle", "back")


#: The joker is refused in the cards of a hand (:func:`poker.cards.parse_card_list`).
_GAME: Final = "Chinese poker"


def _int(value: object, what: str, *, minimum: int) -> int:
    if type(value) is not int:
        raise ShowdownError(f"{what} must be an integer, got {value!r}")
    if value < minimum:
        raise ShowdownError(f"{what} must be at least {minimum}, got {value}")
    return value


def _parse_player(raw: object, i: int, rules: ChineseRules) -> ChinesePlayerIn:
    if not isinstance(raw, Mapping):
        raise ShowdownError(f"players[{i}] must be an object, got {raw!r}")
    seat = raw.get("seat")
    if type(seat) is not int:
        raise ShowdownError(f"players[{i}]: {'missing field' if seat is None else 'bad'} seat {seat!r}")
    where = f"seat {seat}"
    stack = raw.get("stack")
    if stack is not None and (type(stack) is not int or stack < 0):
        _int(stack, f"{where}: stack", minimum=0)
    surrender = raw.get("surrender", False)
    if surrender is not True and surrender is not False:
        raise ShowdownError(f"{where}: surrender must be true or false, got {surrender!r}")
    fouled = raw.get("fouled", False)
    if fouled is not True and fouled is not False:
        raise ShowdownError(f"{where}: fouled must be true or false, got {fouled!r}")
    declare_raw = raw.get("declare")
    declare: SweepKind | None = None
    declare_any = False
    if declare_raw is True:
        declare_any = True
    elif declare_raw is not None and declare_raw is not False:
        kind = parse_sweep_kind(declare_raw) if isinstance(declare_raw, str) else None
        if kind is None:
            raise ShowdownError(
                f"{where}: unknown clean sweep {declare_raw!r}; known: {', '.join(str(k) for k in SweepKind)}"
            )
        declare = kind
    if declare is not None and declare not in rules.sweep_values:
        allowed = ", ".join(str(k) for k in rules.sweep_values) or "none"
        raise RulesError(
            f"{where}: {declare} is not a clean sweep under rule set {rules.name} (declarable: {allowed})"
        )
    if declare_any and not rules.sweep_values:
        raise RulesError(f"{where}: rule set {rules.name} has no clean sweeps to declare")
    if surrender and (declare is not None or declare_any):
        raise ShowdownError(f"{where}: a player cannot both surrender and declare a clean sweep")
    if surrender and rules.surrender_points is None:
        raise RulesError(f"{where}: rule set {rules.name} does not allow surrender")
    raw_front, raw_middle, raw_back = raw.get("front"), raw.get("middle"), raw.get("back")
    raw_cards = raw.get("cards")
    front = middle = back = None
    if fouled and raw_cards is None:
        # The house fouled the hand: whatever cards were entered (any counts, a segment or all
        # of them missing) are kept only to catch a card in two hands (a misdeal).
        front, middle, back = (
            None if raw is None else parse_card_list(raw, where, joker_refused_in=_GAME)
            for raw in (raw_front, raw_middle, raw_back)
        )
        cards = (front or ()) + (middle or ()) + (back or ())
    elif raw_front is not None and raw_middle is not None and raw_back is not None and raw_cards is None:
        front = parse_card_list(raw_front, where, joker_refused_in=_GAME)
        middle = parse_card_list(raw_middle, where, joker_refused_in=_GAME)
        back = parse_card_list(raw_back, where, joker_refused_in=_GAME)
        cards = front + middle + back
    elif raw_front is not None or raw_middle is not None or raw_back is not None:
        has_set = [k for k in SET_ROWS if raw.get(k) is not None]
        if raw_cards is not None:
            raise ShowdownError(
                f"{where}: give either 'cards' (unset) or 'front', 'middle' and 'back', not both"
            )
        missing = [k for k in SET_ROWS if k not in has_set]
        raise ShowdownError(
            f"{where}: a set hand needs front, middle and back (missing {', '.join(missing)})"
        )
    elif raw_cards is not None:
        cards = parse_card_list(raw_cards, where, joker_refused_in=_GAME)
    elif surrender:
        cards = ()
    else:
        raise ShowdownError(f"{where}: missing cards (give 'front', 'middle' and 'back', or 'cards')")
    return _new_player_in(seat, stack, front, middle, back, cards, declare, declare_any, surrender, fouled)


def _count(value: object) -> int | None:
    """How many cards a card list (or a string of cards) holds; ``None`` if it is neither."""
    if type(value) is list:
        return len(value)
    if isinstance(value, str):
        return len(value.replace(",", " ").split())
    return None


#: The card counts of the hands of :data:`SET_ROWS`: a set hand is 3-5-5.
SET_SIZES: Final = (3, 5, 5)


def _seat_count_problem(raw: Mapping[str, Any], where: str) -> str | None:
    if raw.get("fouled") is True:
        return None  # the house fouled it: any count plays (as fouled)
    given = {k: _count(raw[k]) for k in (*SET_ROWS, "cards") if raw.get(k) is not None}
    if None in given.values():
        return None  # not a card list: decide() refuses it with its own message
    declared = raw.get("declare") not in (None, False)
    surrendered = raw.get("surrender") is True
    if declared or surrendered:
        if surrendered and not given:
            return None  # a surrendered hand may be given without its cards
        total = sum(n for n in given.values() if n is not None)
        if total != 13:
            what = "declared" if declared else "surrendered"
            return f"{where}: the {what} hand has {total} cards (13 needed)"
        return None
    if "cards" in given:
        if given["cards"] != 13:
            return f"{where}: the hand has {given['cards']} cards (13 needed)"
        return None
    if not given:
        return f"{where}: no cards entered"
    counts = [given.get(k) or 0 for k in SET_ROWS]
    if tuple(counts) != SET_SIZES:
        front, middle, back = counts
        return f"{where}: front {front}, middle {middle}, back {back} cards (a set hand is 3-5-5)"
    return None


def count_problems(entry: Mapping[str, Any]) -> str | None:
    """The first wrong card count in a Chinese poker entry, as a message naming the seat, or
    ``None`` when every count is right.

    For the dealer terminal (a wrong count is a data-entry error unless the dealer marks the
    hand ``"fouled": true``, 004 rule 8); :func:`decide_chinese` itself still plays a wrong
    count as a foul (RULINGS 3) and is not changed by this check.

    ``entry`` is a Chinese poker hand (its ``players`` are checked in input order) or one player
    object.  Per seat, skipping a hand marked ``"fouled": true``:

    * a set hand (``front``, ``middle``, ``back``; a missing one counts 0): 3, 5 and 5 cards;
    * a hand that declares a clean sweep or surrenders: 13 cards in all (a surrendered hand may
      be given without cards);
    * an unset hand (``cards``): 13 cards;
    * a seat with no cards at all (neither surrendered nor fouled): a problem.

    Only counts are checked: card texts, a card twice and the setting order are left to
    :func:`decide_chinese` (an input error, or a foul).  A value that is not a card list or a
    string of cards is skipped (decide refuses it).
    """
    players = entry.get("players") if "players" in entry else [entry]
    if type(players) is not list:
        return None
    for i, raw in enumerate(players):
        if not isinstance(raw, Mapping):
            continue
        seat = raw.get("seat")
        problem = _seat_count_problem(raw, f"seat {seat}" if type(seat) is int else f"players[{i}]")
        if problem is not None:
            return problem
    return None


def _misdeal(players: Sequence[ChinesePlayerIn]) -> None:
    """The same card in two players' hands is a misdeal (004 rule 9): an input error."""
    owner: dict[Card, int] = {}
    for p in players:
        for card in set(p.cards):
            other = owner.get(card)
            if other is not None:
                raise ShowdownError(
                    f"card {card} is held by seat {other} and seat {p.seat} (misdeal, 004 rule 9)"
                )
            owner[card] = p.seat


def parse_chinese(hand: Mapping[str, Any]) -> ChineseRequest:
    """Validate a Chinese poker hand and build the typed request.

    Raises:
        ShowdownError: unknown rule set or option, a missing or bad field, a seat twice, fewer
            than two or more than four players, an unknown card, the joker, a card in two
            players' hands (misdeal), a sweep the rule set does not have.
    """
    game = hand.get("game", GAME)
    if game != GAME:
        raise ShowdownError(f"not a Chinese poker hand: game {game!r}")
    rules = resolve_rules(hand.get("rules"))
    if "point" not in hand:
        raise ShowdownError("missing field 'point' (the value of one point, in cents)")
    point = _int(hand["point"], "point", minimum=1)
    if "button" not in hand:
        raise ShowdownError("missing field 'button' (the seat of the button player)")
    button = _int(hand["button"], "button", minimum=-(1 << 62))
    raw_players = hand.get("players")
    if type(raw_players) is not list:
        raise ShowdownError("players must be a list of player objects")
    if not 2 <= len(raw_players) <= MAX_PLAYERS:
        raise ShowdownError(
            f"Chinese poker is played by 2 to {MAX_PLAYERS} hands, got {len(raw_players)}"
            " (a fifth seated player sits out the round)"
        )
    players = tuple(_parse_player(raw, i, rules) for i, raw in enumerate(raw_players))
    seats = [p.seat for p in players]
    if len(set(seats)) != len(seats):
        twice = next(s for s in seats if seats.count(s) > 1)
        raise ShowdownError(f"seat {twice} appears twice")
    if button not in seats:
        raise ShowdownError(f"button seat {button} is not a player in the hand (the button player is P1)")
    total = sum(len(p.cards) for p in players)
    if len({c for p in players for c in p.cards}) != total:
        # a card twice in one hand is a foul; twice across hands is a misdeal
        _misdeal(players)
    return _new_request(rules, point, button, players)


# --------------------------------------------------------------------------------------
# Reading a setting
# --------------------------------------------------------------------------------------

_WHEEL_LOW: Final = (5, 4, 3, 2, 1)  # ace-to-five ranks of the best low (ace = 1)


# How a segment reads depends only on its ranks (and, for five cards, on whether they share a
# suit), so readings are memoised by that key: hands.py evaluates each pattern once.
_FRONT_READS: dict[int, SegmentHand] = {}
_FIVE_READS: dict[int, SegmentHand] = {}
_LOW_READS: dict[int, SegmentHand] = {}


# The key of a rank multiset: the product of one prime per rank (unique by factorisation).
_PRIMES: Final = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_PRIME_OF_CODE: Final = tuple(_PRIMES[code >> 2] for code in range(52))


def _read_front(cards: tuple[Card, ...]) -> SegmentHand:
    p = _PRIME_OF_CODE
    a, b, c = cards
    key = p[a.code] * p[b.code] * p[c.code]
    got = _FRONT_READS.get(key)
    if got is None:
        h = three_card_high(cards)
        got = _FRONT_READS[key] = SegmentHand(h.strength, h.name, h.category, h.ranks)
    return got


def _five_key(cards: tuple[Card, ...]) -> int:
    """Rank multiset and "one suit" flag: the reading of five cards depends on nothing else."""
    p = _PRIME_OF_CODE
    a, b, c, d, e = cards
    suit = a.suit
    key = p[a.code] * p[b.code] * p[c.code] * p[d.code] * p[e.code] * 2
    return key + 1 if suit == b.suit == c.suit == d.suit == e.suit else key


def _read_five(cards: tuple[Card, ...], key: int) -> SegmentHand:
    got = _FIVE_READS.get(key)
    if got is None:
        h = best_high(cards)
        got = _FIVE_READS[key] = SegmentHand(h.strength, h.name, h.category, h.ranks)
    return got


def _read_low(cards: tuple[Card, ...], key: int) -> SegmentHand:
    """A lowball middle (001 option as RULINGS 4 rules it): ace-to-five low. Aces are low,
    straights and flushes don't count (so A-2-3-4-5 is no straight: it is the best hand, the
    wheel), pairs count against the hand. The value is the low's strength (bigger wins)."""
    key >>= 1  # suits don't matter to an ace-to-five low: drop the one-suit flag
    got = _LOW_READS.get(key)
    if got is None:
        low = best_low_a5(cards)
        got = _LOW_READS[key] = SegmentHand(low.strength, low.name, low.category, low.ranks)
    return got


def read_setting(
    front: Sequence[Card], middle: Sequence[Card], back: Sequence[Card], *, lowball_middle: bool = False
) -> tuple[tuple[SegmentHand, SegmentHand, SegmentHand] | None, str | None]:
    """Read a set hand: ``(segments, None)`` when legal, ``(segments or None, why)`` when fouled.

    Fouls: wrong counts (segments ``None``), a card twice in the hand, wrong order (back >=
    middle >= front; with ``lowball_middle`` only back > front).
    """
    nf, nm, nb = len(front), len(middle), len(back)
    if nf != 3 or nm != 5 or nb != 5:
        return None, f"wrong counts: front {nf}, middle {nm}, back {nb} (3-5-5 needed)"
    f = tuple(front)
    m = tuple(middle)
    b = tuple(back)
    all_cards = f + m + b
    twice: Card | None = None
    if len(set(all_cards)) != 13:
        seen: set[Card] = set()
        for c in all_cards:
            if c in seen:
                twice = c
                break
            seen.add(c)
        return None, f"card {twice} appears twice in the hand"
    front_seg = _read_front(f)
    back_seg = _read_five(b, _five_key(b))
    if lowball_middle:
        segs = (front_seg, _read_low(m, _five_key(m)), back_seg)
        if back_seg.value <= front_seg.value:
            return segs, f"front ({front_seg.name}) is not below back ({back_seg.name})"
        return segs, None
    middle_seg = _read_five(m, _five_key(m))
    segs = (front_seg, middle_seg, back_seg)
    if middle_seg.value > back_seg.value:
        return segs, f"middle ({middle_seg.name}) beats back ({back_seg.name})"
    if front_seg.value > middle_seg.value:
        return segs, f"front ({front_seg.name}) beats middle ({middle_seg.name})"
    return segs, None


# --------------------------------------------------------------------------------------
# Bonuses
# --------------------------------------------------------------------------------------


def _matches(hand: BonusHand, seg: SegmentHand) -> bool:
    c = seg.category
    if hand is BonusHand.THREE_OF_A_KIND:
        return c is Category.THREE_OF_A_KIND
    if hand is BonusHand.EIGHTS_OR_BETTER:
        return c is Category.THREE_OF_A_KIND and seg.ranks[0] >= 8
    if hand is BonusHand.FULL_HOUSE:
        return c is Category.FULL_HOUSE
    if hand is BonusHand.FOUR_OF_A_KIND:
        return c is Category.FOUR_OF_A_KIND
    if hand is BonusHand.STRAIGHT_FLUSH:
        return c is Category.STRAIGHT_FLUSH
    if hand is BonusHand.ROYAL_FLUSH:
        return c is Category.STRAIGHT_FLUSH and seg.ranks[0] == 14
    if hand is BonusHand.WHEEL_LOW:
        return c is Category.HIGH_CARD and seg.ranks == _WHEEL_LOW
    raise AssertionError(hand)  # pragma: no cover


#: The category a bonus hand needs (a necessary condition; :func:`_matches` decides).
_BONUS_CATEGORY: Final = {
    BonusHand.THREE_OF_A_KIND: Category.THREE_OF_A_KIND,
    BonusHand.EIGHTS_OR_BETTER: Category.THREE_OF_A_KIND,
    BonusHand.FULL_HOUSE: Category.FULL_HOUSE,
    BonusHand.FOUR_OF_A_KIND: Category.FOUR_OF_A_KIND,
    BonusHand.STRAIGHT_FLUSH: Category.STRAIGHT_FLUSH,
    BonusHand.ROYAL_FLUSH: Category.STRAIGHT_FLUSH,
    BonusHand.WHEEL_LOW: Category.HIGH_CARD,
}
_Candidates = tuple[tuple[BonusHand, int], ...]
# Per segment (front, middle, back): category -> the rows that may match it, most points first.
_Rows = tuple[dict[Category, _Candidates], ...]
# id(rules) -> (rules, rows): by identity, since hashing a rule set walks all its tables.
_ROWS_BY_RULES: dict[int, tuple[ChineseRules, _Rows]] = {}


def _bonus_rows(rules: ChineseRules) -> _Rows:
    """The bonus rows in force, indexed by segment and category."""
    got = _ROWS_BY_RULES.get(id(rules))
    if got is not None and got[0] is rules:
        return got[1]
    table = rules.bonus_table
    rows: list[dict[Category, _Candidates]] = []
    for seg in SEGMENTS:
        by_cat: dict[Category, list[tuple[BonusHand, int]]] = {}
        for r in table:
            if r.segment is seg and r.points:
                by_cat.setdefault(_BONUS_CATEGORY[r.hand], []).append((r.hand, r.points))
        rows.append({c: tuple(sorted(v, key=lambda hp: -hp[1])) for c, v in by_cat.items()})
    if len(_ROWS_BY_RULES) > 256:
        _ROWS_BY_RULES.clear()
    result = tuple(rows)
    _ROWS_BY_RULES[id(rules)] = (rules, result)
    return result


_NO_BONUS: Final = (None, 0)


def _bonus(rows: dict[Category, _Candidates], seg: SegmentHand) -> tuple[BonusHand | None, int]:
    candidates = rows.get(seg.category)
    if candidates:
        for hand, points in candidates:
            if _matches(hand, seg):
                return hand, points
    return _NO_BONUS


# --------------------------------------------------------------------------------------
# Settling
# --------------------------------------------------------------------------------------


def settlement_order(seats: Sequence[int], button: int) -> list[int]:
    """Seats by position: the button seat first, then clockwise (ascending, wrapping)."""
    ordered = sorted(seats)
    i = ordered.index(button)
    return ordered[i:] + ordered[:i]


@dataclass(slots=True)
class _Player:
    inp: ChinesePlayerIn
    position: int
    status: Status
    foul: str | None = None
    segments: tuple[SegmentHand, SegmentHand, SegmentHand] | None = None
    bonus_types: tuple[BonusHand | None, ...] = ()
    bonuses: tuple[int, ...] = ()
    sweep: SweepKind | None = None
    sweep_value: int = 0
    summary: HandSummary | None = None


def _read_player(p: ChinesePlayerIn, position: int, rules: ChineseRules, rows: _Rows) -> _Player:
    if p.fouled:  # the house's ruling stands over the cards, a declaration or a surrender
        return _Player(p, position, Status.FOULED, HOUSE_FOUL)
    if p.surrender:
        return _Player(p, position, Status.SURRENDERED)
    if p.declare is not None or p.declare_any:
        values = rules.sweep_values
        if len(p.cards) != 13:
            return _Player(p, position, Status.FOULED, f"declared a clean sweep with {len(p.cards)} cards")
        if len(set(p.cards)) != 13:
            return _Player(p, position, Status.FOULED, "declared a clean sweep with a card twice in the hand")
        summary = summarise(p.cards)
        found = find_sweeps(summary, values)
        if p.declare is not None and p.declare not in found:
            return _Player(
                p, position, Status.FOULED, f"declared {p.declare}, which the 13 cards do not hold"
            )
        if not found:
            return _Player(p, position, Status.FOULED, "declared a clean sweep that the 13 cards do not hold")
        best = max(found, key=lambda k: (values[k], k == p.declare))
        return _Player(p, position, Status.SWEEP, sweep=best, sweep_value=values[best], summary=summary)
    if p.front is None or p.middle is None or p.back is None:
        return _Player(p, position, Status.FOULED, "hand not set (and no clean sweep declared)")
    segs, foul = read_setting(p.front, p.middle, p.back, lowball_middle=rules.lowball_middle)
    if foul is not None:
        return _Player(p, position, Status.FOULED, foul, segs)
    assert segs is not None
    b0 = _bonus(rows[0], segs[0])
    b1 = _bonus(rows[1], segs[1])
    b2 = _bonus(rows[2], segs[2])
    return _Player(p, position, Status.SET, None, segs, (b0[0], b1[0], b2[0]), (b0[1], b1[1], b2[1]))


def _sweep_points(a: _Player, b: _Player, rules: ChineseRules) -> int:
    """Sweep points of a pair from ``a``'s side (at least one of them has a sweep)."""
    if b.status is not Status.SWEEP:
        return a.sweep_value
    if a.status is not Status.SWEEP:
        return -b.sweep_value
    if a.sweep_value != b.sweep_value:
        return a.sweep_value if a.sweep_value > b.sweep_value else -b.sweep_value
    kind = a.sweep
    if rules.natural_ties is NaturalTies.COMPARE and kind is not None and kind is b.sweep:
        assert a.summary is not None
        assert b.summary is not None
        ka = sweep_tiebreak(kind, a.summary)
        kb = sweep_tiebreak(kind, b.summary)
        if ka > kb:
            return a.sweep_value
        if kb > ka:
            return -b.sweep_value
    return 0


# A regular pair's points from the first player's side: front, middle, back, bonus, overall,
# scoop points, surrender, and who scooped whom (+1 the first, -1 the second, 0 nobody).
_PairScore = tuple[int, int, int, int, int, int, int, int]
_PUSH: Final[_PairScore] = (0, 0, 0, 0, 0, 0, 0, 0)


def _score_set_pair(a: _Player, b: _Player, rules: ChineseRules, button: int) -> _PairScore:
    sa, sb = a.segments, b.segments
    assert sa is not None
    assert sb is not None
    button_side = 0
    if rules.button_wins_ties:
        if a.inp.seat == button:
            button_side = 1
        elif b.inp.seat == button:
            button_side = -1
    double = rules.double_same_type
    segs = [0, 0, 0]
    bonus = wins = losses = 0
    for i in range(3):
        va, vb = sa[i].value, sb[i].value
        w = 1 if va > vb else -1 if vb > va else button_side
        if w > 0:
            segs[i] = 1
            wins += 1
            pts = a.bonuses[i]
            if pts and double and b.bonus_types[i] is a.bonus_types[i] and va > vb:
                pts *= 2
            bonus += pts
        elif w < 0:
            segs[i] = -1
            losses += 1
            pts = b.bonuses[i]
            if pts and double and a.bonus_types[i] is b.bonus_types[i] and vb > va:
                pts *= 2
            bonus -= pts
    f, m, k = segs
    op = rules.overall_points
    overall = 0
    if rules.overall is Overall.SEGMENTS:
        overall = op if wins >= 2 else -op if losses >= 2 else 0
    elif rules.overall is Overall.NET:
        net = f + m + k + bonus
        overall = op if net > 0 else -op if net < 0 else 0
    if wins == 3:
        return (f, m, k, bonus, overall, rules.scoop_points, 0, 1)
    if losses == 3:
        return (f, m, k, bonus, overall, -rules.scoop_points, 0, -1)
    return (f, m, k, bonus, overall, 0, 0, 0)


def _score_foul_pair(winner: _Player, rules: ChineseRules, sign: int) -> _PairScore:
    """One hand fouled, the other set: the set hand (``sign`` 1: the first) scoops it."""
    overall = sign * rules.overall_points if rules.overall is not Overall.NONE else 0
    return (sign, sign, sign, sign * sum(winner.bonuses), overall, sign * rules.scoop_points, 0, sign)


def _score_pair(a: _Player, b: _Player, rules: ChineseRules, button: int) -> _PairScore:
    sa, sb = a.status, b.status
    if sa is Status.SET:
        if sb is Status.SET:
            return _score_set_pair(a, b, rules, button)
        if sb is Status.FOULED:
            return _score_foul_pair(a, rules, 1)
        if sb is Status.SURRENDERED:
            return (0, 0, 0, 0, 0, 0, rules.surrender_points or 0, 0)
    elif sb is Status.SET:
        if sa is Status.FOULED:
            return _score_foul_pair(b, rules, -1)
        if sa is Status.SURRENDERED:
            return (0, 0, 0, 0, 0, 0, -(rules.surrender_points or 0), 0)
    return _PUSH  # fouled/fouled, surrendered/surrendered, fouled/surrendered


def settle_chinese(request: ChineseRequest) -> ChineseResult:
    """Score every pair, then settle the payments in order under the all-in caps."""
    rules = request.rules
    point = request.point
    button = request.button
    rows = _bonus_rows(rules)
    by_seat = {p.seat: p for p in request.players}
    order = settlement_order(list(by_seat), button)
    players = [_read_player(by_seat[s], i + 1, rules, rows) for i, s in enumerate(order)]
    n = len(players)

    sweep_pairs: list[Matchup] = []
    regular: list[tuple[int, int, _PairScore]] = []
    sweep_status = Status.SWEEP
    for i in range(n):
        a = players[i]
        for j in range(i + 1, n):
            b = players[j]
            if a.status is sweep_status or b.status is sweep_status:
                sweep = _sweep_points(a, b, rules)
                pts = _new_points(0, 0, 0, 0, 0, sweep, 0, 0)
                sweep_pairs.append(_new_matchup((a.inp.seat, b.inp.seat), True, pts, sweep))
            else:
                regular.append((a.inp.seat, b.inp.seat, _score_pair(a, b, rules, button)))

    # scoop-double (002): scooped pays the base double; a home run doubles it again.
    scoop_double = rules.scoop_double
    home_run: set[int] = set()
    if scoop_double and n >= 3:
        scooped: dict[int, int] = dict.fromkeys(order, 0)
        for s1, s2, sc in regular:
            if sc[7]:
                scooped[s1 if sc[7] > 0 else s2] += 1
        home_run = {s for s, k in scooped.items() if k == n - 1}
    matchups = sweep_pairs
    for s1, s2, (f, m, k, bonus, overall, scoop, surrender, scorer) in regular:
        if scoop_double and scorer:
            scoop += (f + m + k + overall + scoop) * (3 if (s1 if scorer > 0 else s2) in home_run else 1)
        pts = _new_points(f, m, k, bonus, overall, 0, scoop, surrender)
        matchups.append(_new_matchup((s1, s2), False, pts, f + m + k + bonus + overall + scoop + surrender))

    # caps: only whole points play (settlement.whole_units)
    ledger = CapLedger(
        {p.inp.seat: (None if p.inp.stack is None else p.inp.stack // point * point) for p in players},
        payee_capped=True,
    )
    move = ledger.move
    payments: list[Payment] = []
    points = dict.fromkeys(order, 0)
    net = dict.fromkeys(order, 0)
    for mu in matchups:
        total = mu.total
        if not total:
            continue
        s1, s2 = mu.seats
        points[s1] += total
        points[s2] -= total
        if total > 0:
            payer, payee, due = s2, s1, total * point
        else:
            payer, payee, due = s1, s2, -total * point
        reason = f"sweep {payee}-{payer}" if mu.sweep else f"pair {s1}-{s2}"
        amount = move(payer, payee, due)
        payments.append(_new_payment(payer, payee, amount, due, reason))
        net[payer] -= amount
        net[payee] += amount
    results = tuple(
        [
            _new_result(
                p.inp.seat,
                p.position,
                p.status,
                p.foul,
                ("any" if p.inp.declare_any else str(p.inp.declare)) if p.inp.declares else None,
                p.sweep,
                p.sweep_value,
                p.segments if p.status is Status.SET or p.status is Status.FOULED else None,
                points[p.inp.seat],
                net[p.inp.seat],
            )
            for p in players
        ]
    )
    return _new_chinese_result(rules, point, results, tuple(matchups), tuple(payments))


def decide_chinese(hand: Mapping[str, Any]) -> dict[str, Any]:
    """The showdown registry handler: parse, settle, to JSON.

    Raises:
        ShowdownError: bad input (see :func:`parse_chinese`).
    """
    return settle_chinese(parse_chinese(hand)).to_json()

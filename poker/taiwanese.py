"""Taiwanese poker showdowns (seed 000, RULINGS section 5).

Seven cards set as top 1, middle 2, bottom 4, against one 5-card board or several boards
agreed before the deal, each board scored on its own at the full point value:

* top: best five of the top card and the board; middle: best five of the two middle cards and
  the board; bottom: Omaha, exactly two of the four bottom cards and three board cards;
* per position the strongest hand wins base points (top 1, middle 2, bottom 3) plus its bonus
  from 000's chart; each loser pays ``(base + bonus) x point``, except a loser whose hand is of
  the same category as the winner's, who pays the base only;
* tied winners pay nothing; the losers' payments are split evenly in whole chips, the chips
  left over going one each to the tied winners in order of the highest card each *set* in
  that position (rank, then suit: spades > hearts > diamonds > clubs);
* scoop: winning all three positions of a board outright earns 3 more points from each other
  player;
* payments are made board by board, position by position (top, middle, bottom, scoop), payers
  clockwise from the button (the button seat first); a player pays at most the chips in play
  at the start of the hand (``stack``, counted in whole chips).

    JSON mapping --parse_taiwanese--> TaiwaneseRequest --settle_taiwanese--> TaiwaneseResult
                 --TaiwaneseResult.to_json--> JSON mapping (docs/showdown-json.md, "Taiwanese poker")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any, Final

from .cards import Card, parse_card_list
from .errors import ShowdownError
from .hands import Category, HighHand, best_high, omaha_high
from .settlement import CapLedger, Payment, whole_units

__all__ = [
    "BASE_POINTS",
    "BOARD_CARDS",
    "BONUS_CHART",
    "GAME",
    "SCOOP_POINTS",
    "SET_COUNTS",
    "Position",
    "PositionResult",
    "TaiwanesePlayerIn",
    "TaiwaneseRequest",
    "TaiwaneseResult",
    "decide_taiwanese",
    "parse_taiwanese",
    "settle_taiwanese",
    "split_in_chips",
]

GAME: Final = "taiwanese-poker"
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6


class Position(StrEnum):
    TOP = "top"
    MIDDLE = "middle"
    BOTTOM = "bottom"
    SCOOP = "scoop"


POSITIONS: Final = (Position.TOP, Position.MIDDLE, Position.BOTTOM)
#: Base points for winning a position.
BASE_POINTS: Final[dict[Position, int]] = {Position.TOP: 1, Position.MIDDLE: 2, Position.BOTTOM: 3}
#: Extra points from each other player for winning all three positions of a board outright.
SCOOP_POINTS: Final = 3

_C = Category
#: 000's bonus chart: position -> category -> bonus points (royal flush is a straight flush).
BONUS_CHART: Final[dict[Position, dict[Category, int]]] = {
    Position.TOP: {
        _C.TWO_PAIR: 1,
        _C.THREE_OF_A_KIND: 2,
        _C.STRAIGHT: 3,
        _C.FLUSH: 3,
        _C.FULL_HOUSE: 4,
        _C.FOUR_OF_A_KIND: 6,
        _C.STRAIGHT_FLUSH: 12,
    },
    Position.MIDDLE: {
        _C.THREE_OF_A_KIND: 1,
        _C.STRAIGHT: 2,
        _C.FLUSH: 2,
        _C.FULL_HOUSE: 3,
        _C.FOUR_OF_A_KIND: 5,
        _C.STRAIGHT_FLUSH: 10,
    },
    Position.BOTTOM: {_C.FULL_HOUSE: 2, _C.FOUR_OF_A_KIND: 4, _C.STRAIGHT_FLUSH: 8},
}
#: The hands a player sets, in order, and their card counts.
SET_COUNTS: Final = ((Position.TOP, 1), (Position.MIDDLE, 2), (Position.BOTTOM, 4))
#: The cards of a board.
BOARD_CARDS: Final = 5


# --------------------------------------------------------------------------------------
# Request and result
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaiwanesePlayerIn:
    seat: int
    top: tuple[Card, ...]
    middle: tuple[Card, ...]
    bottom: tuple[Card, ...]
    stack: int | None  # cents; None: no cap


@dataclass(frozen=True, slots=True)
class TaiwaneseRequest:
    point: int
    chip: int
    button: int
    boards: tuple[tuple[Card, ...], ...]
    players: tuple[TaiwanesePlayerIn, ...]


@dataclass(frozen=True, slots=True)
class PayIn:
    """One payer's part in a position: ``points`` called for, ``due`` cents, ``amount`` paid."""

    seat: int
    points: int
    due: int
    amount: int


@dataclass(frozen=True, slots=True)
class Award:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class PositionResult:
    """One board's position (or its scoop): who won, for how many points, who paid what."""

    board: int  # 1-based
    position: Position
    winners: tuple[int, ...]  # in odd-chip order
    hand: str | None  # the winning hand's name (None for a scoop)
    base: int
    bonus: int
    paid: tuple[PayIn, ...]
    awards: tuple[Award, ...]

    @property
    def points(self) -> int:
        return self.base + self.bonus


@dataclass(frozen=True, slots=True)
class TaiwaneseResult:
    point: int
    chip: int
    boards: tuple[tuple[Card, ...], ...]
    order: tuple[int, ...]  # seats clockwise from the button
    hands: dict[int, tuple[tuple[HighHand, HighHand, HighHand], ...]]  # seat -> per board
    positions: tuple[PositionResult, ...]
    payments: tuple[Payment, ...]
    net: dict[int, int]

    def to_json(self) -> dict[str, Any]:
        """The contract's output object (docs/showdown-json.md, "Taiwanese poker")."""
        players: dict[str, Any] = {}
        for seat in self.order:
            players[str(seat)] = {
                "boards": [
                    {
                        str(pos): {"name": h.name, "cards": [c.text for c in h.cards]}
                        for pos, h in zip(POSITIONS, per_board, strict=True)
                    }
                    for per_board in self.hands[seat]
                ],
                "net": self.net[seat],
            }
        return {
            "game": GAME,
            "players": players,
            "positions": [
                {
                    "board": p.board,
                    "position": str(p.position),
                    "winners": list(p.winners),
                    "hand": p.hand,
                    "base": p.base,
                    "bonus": p.bonus,
                    "points": p.points,
                    "paid": [
                        {"seat": x.seat, "points": x.points, "due": x.due, "amount": x.amount} for x in p.paid
                    ],
                    "awards": [{"seat": a.seat, "amount": a.amount} for a in p.awards],
                }
                for p in self.positions
            ],
            "payments": [p.to_json() for p in self.payments],
        }


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------

#: A hand's, row's or board's cards (:func:`poker.cards.parse_card_list`); the joker is refused.
_cards: Final = partial(parse_card_list, joker_refused_in="Taiwanese poker")


def _int(value: object, what: str, minimum: int) -> int:
    if type(value) is not int:
        raise ShowdownError(f"{what} must be an integer, got {value!r}")
    if value < minimum:
        raise ShowdownError(f"{what} must be at least {minimum}, got {value}")
    return value


def parse_taiwanese(hand: Mapping[str, Any]) -> TaiwaneseRequest:
    """Validate a Taiwanese poker hand.

    Raises:
        ShowdownError: a missing or bad field, fewer than 2 or more than 6 players, a seat
            twice, unknown card text, the joker, a wrong card count, a card twice (in one hand,
            in two hands, on a board, or in a hand and on a board); the message names the seat
            (or board) and the card.
    """
    game = hand.get("game", GAME)
    if game != GAME:
        raise ShowdownError(f"not a Taiwanese poker hand: game {game!r}")
    for key in ("point", "chip", "button"):
        if key not in hand:
            raise ShowdownError(f"missing field {key!r}")
    point = _int(hand["point"], "point", 1)
    chip = _int(hand["chip"], "chip", 1)
    if point % chip:
        raise ShowdownError(f"point ({point}) must be a whole number of chips ({chip})")
    button = _int(hand["button"], "button", -(1 << 62))

    raw_boards = hand.get("boards")
    if raw_boards is None and "board" in hand:
        raw_boards = [hand["board"]]
    elif "board" in hand:
        raise ShowdownError("give 'boards' (a list of boards) or 'board', not both")
    if type(raw_boards) is not list or not raw_boards:
        raise ShowdownError("boards must be a non-empty list of 5-card boards")
    boards: list[tuple[Card, ...]] = []
    for k, raw in enumerate(raw_boards, 1):
        board = _cards(raw, f"board {k}")
        if len(board) != BOARD_CARDS:
            raise ShowdownError(f"board {k}: a board has {BOARD_CARDS} cards, got {len(board)}")
        boards.append(board)

    raw_players = hand.get("players")
    if type(raw_players) is not list:
        raise ShowdownError("players must be a list of player objects")
    if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
        raise ShowdownError(
            f"Taiwanese poker is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(raw_players)}"
        )
    players: list[TaiwanesePlayerIn] = []
    seats: set[int] = set()
    for i, raw in enumerate(raw_players):
        if not isinstance(raw, Mapping):
            raise ShowdownError(f"players[{i}] must be an object, got {raw!r}")
        seat = raw.get("seat")
        if type(seat) is not int:
            raise ShowdownError(f"players[{i}]: {'missing field' if seat is None else 'bad'} seat {seat!r}")
        if seat in seats:
            raise ShowdownError(f"seat {seat} appears twice")
        seats.add(seat)
        where = f"seat {seat}"
        parts: list[tuple[Card, ...]] = []
        for pos, count in SET_COUNTS:
            if raw.get(pos) is None:
                raise ShowdownError(
                    f"{where}: missing field {str(pos)!r} ({count} card{'s' if count > 1 else ''})"
                )
            cards = _cards(raw[pos], f"{where} {pos}")
            if len(cards) != count:
                raise ShowdownError(
                    f"{where}: the {pos} hand has {count} card{'s' if count > 1 else ''}, got {len(cards)}"
                )
            parts.append(cards)
        stack_raw = raw.get("stack")
        stack = None if stack_raw is None else _int(stack_raw, f"{where}: stack", 0)
        players.append(TaiwanesePlayerIn(seat, parts[0], parts[1], parts[2], stack))

    owner: dict[Card, str] = {}
    for p in players:
        where = f"seat {p.seat}"
        for card in p.top + p.middle + p.bottom:
            seen = owner.get(card)
            if seen == where:
                raise ShowdownError(f"{where}: card {card} appears twice in the hand")
            if seen is not None:
                raise ShowdownError(f"card {card} is held by {seen} and {where} (misdeal)")
            owner[card] = where
    for k, board in enumerate(boards, 1):
        where = f"board {k}"
        for card in board:
            seen = owner.get(card)
            if seen == where:
                raise ShowdownError(f"{where}: card {card} appears twice on the board")
            if seen is not None:
                raise ShowdownError(f"card {card} is both in {seen} and on {where} (misdeal)")
            owner[card] = where
    return TaiwaneseRequest(point, chip, button, tuple(boards), tuple(players))


# --------------------------------------------------------------------------------------
# Settling
# --------------------------------------------------------------------------------------


def clockwise_from(seats: Sequence[int], button: int) -> list[int]:
    """Seats clockwise (ascending, wrapping) starting at the button seat (or the first seat
    after it when the button seat is not playing)."""
    ordered = sorted(seats)
    start = next((i for i, s in enumerate(ordered) if s >= button), 0)
    return ordered[start:] + ordered[:start]


def split_in_chips(total: int, winners: Sequence[int], chip: int) -> list[tuple[int, int]]:
    """Split ``total`` evenly in whole chips among ``winners`` (in odd-chip order); the chips
    left over go one each to the first winners.  ``total`` is a whole number of chips."""
    n = len(winners)
    share = total // (chip * n) * chip
    odd = (total - share * n) // chip
    return [(seat, share + (chip if i < odd else 0)) for i, seat in enumerate(winners)]


def _flows(paid: Sequence[PayIn], awards: Sequence[tuple[int, int]], reason: str) -> list[Payment]:
    """Payer -> winner payments for one position: each payer's amount fills the winners'
    awards in order.  Each payment's ``due`` is its amount, plus (on the payer's last payment)
    what the payer's cap left unpaid, so dues and amounts add up per payer."""
    out: list[Payment] = []
    targets = [[seat, amount] for seat, amount in awards]
    t = 0
    for p in paid:
        left = p.amount
        mine: list[Payment] = []
        while left and t < len(targets):
            seat, room = targets[t]
            take = min(left, room)
            if take:
                mine.append(Payment(p.seat, seat, take, take, reason))
                targets[t][1] -= take
                left -= take
            if targets[t][1] == 0:
                t += 1
        short = p.due - p.amount
        if short:
            if mine:
                last = mine[-1]
                mine[-1] = Payment(last.payer, last.payee, last.amount, last.due + short, reason)
            else:
                to = awards[min(t, len(awards) - 1)][0]
                mine.append(Payment(p.seat, to, 0, short, reason))
        out.extend(mine)
    return out


def _highest_set_card(cards: Sequence[Card]) -> int:
    return max(c.code for c in cards)  # code = (rank - 2) * 4 + suit order: rank, then suit


def settle_taiwanese(request: TaiwaneseRequest) -> TaiwaneseResult:
    """Read every hand on every board, score each position, and pay in order under the caps."""
    point, chip = request.point, request.chip
    players = {p.seat: p for p in request.players}
    order = clockwise_from(list(players), request.button)
    ledger = CapLedger(
        {s: (whole_units(p.stack, chip) if p.stack is not None else None) for s, p in players.items()},
        payee_capped=False,
    )
    hands: dict[int, list[tuple[HighHand, HighHand, HighHand]]] = {s: [] for s in order}
    positions: list[PositionResult] = []
    payments: list[Payment] = []
    for k, board in enumerate(request.boards, 1):
        read: dict[int, tuple[HighHand, HighHand, HighHand]] = {}
        for s in order:
            p = players[s]
            read[s] = (best_high(p.top + board), best_high(p.middle + board), omaha_high(p.bottom, board))
            hands[s].append(read[s])
        outright: list[int] = []
        for i, pos in enumerate(POSITIONS):
            best = max(read[s][i].strength for s in order)
            winners = [s for s in order if read[s][i].strength == best]
            win_hand = read[winners[0]][i]
            if len(winners) > 1:
                set_cards = {Position.TOP: "top", Position.MIDDLE: "middle", Position.BOTTOM: "bottom"}[pos]
                winners.sort(key=lambda s: -_highest_set_card(getattr(players[s], set_cards)))
            else:
                outright.append(winners[0])
            base = BASE_POINTS[pos]
            bonus = BONUS_CHART[pos].get(win_hand.category, 0)
            paid: list[PayIn] = []
            for s in order:
                if s in winners:
                    continue
                pts = base if read[s][i].category is win_hand.category else base + bonus
                due = pts * point
                paid.append(PayIn(s, pts, due, ledger.move(s, winners[0], due)))
            reason = f"board {k} {pos}"
            awards = split_in_chips(sum(x.amount for x in paid), winners, chip)
            positions.append(
                PositionResult(
                    k,
                    pos,
                    tuple(winners),
                    win_hand.name,
                    base,
                    bonus,
                    tuple(paid),
                    tuple(Award(*a) for a in awards),
                )
            )
            payments.extend(_flows(paid, awards, reason))
        if len(outright) == 3 and outright[0] == outright[1] == outright[2]:
            w = outright[0]
            due = SCOOP_POINTS * point
            paid = [PayIn(s, SCOOP_POINTS, due, ledger.move(s, w, due)) for s in order if s != w]
            total = sum(x.amount for x in paid)
            positions.append(
                PositionResult(
                    k, Position.SCOOP, (w,), None, SCOOP_POINTS, 0, tuple(paid), (Award(w, total),)
                )
            )
            payments.extend(_flows(paid, [(w, total)], f"board {k} scoop"))
    net = dict.fromkeys(order, 0)
    for pay in payments:
        net[pay.payer] -= pay.amount
        net[pay.payee] += pay.amount
    return TaiwaneseResult(
        point,
        chip,
        request.boards,
        tuple(order),
        {s: tuple(v) for s, v in hands.items()},
        tuple(positions),
        tuple(payments),
        net,
    )


def decide_taiwanese(hand: Mapping[str, Any]) -> dict[str, Any]:
    """The showdown registry handler: parse, settle, to JSON.

    Raises:
        ShowdownError: bad input (see :func:`parse_taiwanese`).
    """
    return settle_taiwanese(parse_taiwanese(hand)).to_json()

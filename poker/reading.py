"""One typed showdown reading: the engine's answer (``docs/showdown-json.md``) as frozen dataclasses.

:func:`poker.showdown.decide` answers in JSON and the floor stores that object as it came
(``HandResult.engine_result``).  Everything that reads it back reads it through this module:
``Reading.from_json(stored)`` gives one of three shapes, one per engine kind
(:class:`poker.games.EngineKind`), and ``reading.to_json()`` gives the same object back (key
order aside), so a reading can be read, passed around typed and stored again unchanged.

* :class:`PotReading` (holdem ... option alley): the pots, main pot first, each with the seats
  that may win it and its awards (``high``, ``low`` or ``whole`` shares, odd chips included), the
  after-draw chips the sevens rule voided; each live seat's hands as read; the chips given back;
  each seat's net.
* :class:`ChineseReading`: each seat's state (set, fouled and why, clean sweep, surrendered), its
  three hands, points and net; every pair's points segment by segment; the payments in
  settlement order, each with what was due and what the all-in caps let move.
* :class:`TaiwaneseReading`: each seat's three hands on each board and its net; every board's
  positions (and scoops) with winners, points and who paid what; the payments in order.

The shapes reuse the engine's own result types wherever the JSON says the same thing
(:class:`poker.pots.Award`, :class:`poker.settlement.Payment`, :class:`poker.chinese.Matchup`,
:class:`poker.taiwanese.PositionResult`, ...), so one concept has one class.

Reading is strict.  Every key the contract lists for a shape must be there with its JSON type
(the optional ones aside: a pot's ``voided`` and a returned entry's ``reason``, which the engine
writes only when the sevens rule voided chips); a key the contract doesn't list is an error, as
is a value the engine never writes (a seat key that is not a canonical integer, a card text that
is not a card's own spelling, a Chinese ``fouled`` that contradicts its ``status``, a Taiwanese
``points`` that is not ``base + bonus``).  The engine and this module change together (the tests
round-trip every kind of engine output); a key added to the output later is optional here, since
the readings stored before it lack it.  Every error is a :class:`poker.errors.ShowdownError` whose
message names the path (``reading.pots[0].awards[1].amount: ...``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._fast import maker
from ._json import (
    Where,
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    opt_str,
    path,
    seat_ints,
    seat_key,
    seat_list,
)
from .cards import CARD_BY_TEXT, Card
from .chinese import GAME as CHINESE_GAME
from .chinese import Matchup, MatchupPoints, Status
from .errors import ShowdownError
from .games import EngineKind
from .pots import Award, Share
from .settlement import Payment
from .sweeps import SweepKind
from .taiwanese import GAME as TAIWANESE_GAME
from .taiwanese import Award as PositionAward
from .taiwanese import PayIn, Position, PositionResult

__all__ = [
    "ChineseReading",
    "ChineseSeat",
    "PotReading",
    "ReadHand",
    "ReadPot",
    "Reading",
    "ReturnedChips",
    "SeatHands",
    "TaiwaneseBoardHands",
    "TaiwaneseReading",
    "TaiwaneseSeat",
]


# --------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadHand:
    """A hand as the engine read it: its name (``"Full house, kings over sevens"``, ``"8-6-4-3-2"``)
    and the five cards that make it."""

    name: str
    cards: tuple[Card, ...]

    @property
    def card_texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.cards)


class Reading(ABC):
    """A decided showdown, one of :class:`PotReading`, :class:`ChineseReading`,
    :class:`TaiwaneseReading`.  What every reader needs is here; the rest is on the shape."""

    __slots__ = ()

    @staticmethod
    def from_json(value: object) -> Reading:
        """The typed reading of an engine result (as :func:`poker.showdown.decide` returned it,
        or as stored).  Raises ShowdownError when ``value`` is not such a reading."""
        data = as_object(value, "reading")
        if "pots" in data:
            return PotReading.from_json(data)
        game = data.get("game")
        if game == CHINESE_GAME:
            return ChineseReading.from_json(data)
        if game == TAIWANESE_GAME:
            return TaiwaneseReading.from_json(data)
        if game is None:
            raise ShowdownError(
                "reading: neither a pot game's reading (no 'pots') nor another game's (no 'game')"
            )
        raise ShowdownError(f"reading.game: no reading of game {game!r}")

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The engine's JSON object for this reading (``from_json`` of it gives it back)."""
        ...

    @property
    @abstractmethod
    def kind(self) -> EngineKind: ...

    @property
    @abstractmethod
    def seats(self) -> tuple[int, ...]:
        """Every seat of the reading: pot games ascending (folded seats too); Chinese poker by
        position from the button; Taiwanese poker clockwise from the button."""
        ...

    @property
    @abstractmethod
    def net(self) -> dict[int, int]:
        """Each seat's result in cents (won minus put in; received minus paid), in :attr:`seats`
        order.  The nets sum to zero."""
        ...

    @property
    def payments(self) -> tuple[Payment, ...]:
        """Chinese and Taiwanese poker: the payments in settlement order (``amount`` after the
        all-in caps, ``due`` what the points called for), zero payments included.  Pot games
        have none (their money moves through the pot: :attr:`PotReading.pots`)."""
        return ()

    @property
    def outright_winner(self) -> int | None:
        """The seat that won every chip awarded (a pot game's outright winner, for the kill,
        RULINGS §2); None for a split, a hand with nothing awarded, and games without pots."""
        return None

    def net_of(self, seat: int) -> int | None:
        """``seat``'s net, or None when the seat is not in the reading."""
        return self.net.get(seat)


# --------------------------------------------------------------------------------------
# Pot games
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadPot:
    """One pot, main pot first: ``amount`` is what its awards add up to; ``seats`` those who
    could win it; ``voided`` the after-draw chips the sevens rule gave back from it (004 lowball
    rule 2; ``None``: the key is absent, as in every reading without a voided pot)."""

    amount: int
    seats: tuple[int, ...]
    awards: tuple[Award, ...]
    voided: int | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats awarded chips of this pot, in award order (a seat once)."""
        return tuple(dict.fromkeys(a.seat for a in self.awards if a.amount > 0))

    @property
    def built(self) -> int:
        """The pot as built from the chips put in: ``amount + voided``."""
        return self.amount + (self.voided or 0)


@dataclass(frozen=True, slots=True)
class SeatHands:
    """A live seat's hands as read: ``high`` None in low-only games; ``low`` None when the game
    has no low or the hand doesn't qualify (8-or-better)."""

    seat: int
    high: ReadHand | None
    low: ReadHand | None


@dataclass(frozen=True, slots=True)
class ReturnedChips:
    """Chips given back to their owner: nobody matched them (``reason`` None), or the sevens rule
    voided them (``reason``: the engine's words, :data:`poker.showdown.VOID_AFTER_DRAW`)."""

    seat: int
    amount: int
    reason: str | None = None

    @property
    def uncalled(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True)
class PotReading(Reading):
    """A pot game's reading.

    Attributes:
        pots: main pot first, then the side pots.
        hands: each seat whose hand was read, in input order (none when one live player won
            without a showdown).
        seat_nets: ``(seat, net)`` of every player (folded ones too), ascending seat.
        returned: chips given back: the uncalled ones first, then those the sevens rule voided
            (seat order).
    """

    pots: tuple[ReadPot, ...]
    hands: tuple[SeatHands, ...]
    seat_nets: tuple[tuple[int, int], ...]
    returned: tuple[ReturnedChips, ...]

    @property
    def kind(self) -> EngineKind:
        return EngineKind.POT

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.seat_nets)

    @property
    def net(self) -> dict[int, int]:
        return dict(self.seat_nets)

    @property
    def outright_winner(self) -> int | None:
        winners = {a.seat for pot in self.pots for a in pot.awards if a.amount > 0}
        return winners.pop() if len(winners) == 1 else None

    @property
    def showdown(self) -> bool:
        """Whether hands were read (False: everyone else folded)."""
        return bool(self.hands)

    def awards(self) -> Iterator[tuple[int, Award]]:
        """``(pot index, award)`` of every award in settlement order (main pot first; 0 is the
        main pot, ``i`` side pot ``i``)."""
        for i, pot in enumerate(self.pots):
            for award in pot.awards:
                yield i, award

    def hand_of(self, seat: int) -> SeatHands | None:
        return next((h for h in self.hands if h.seat == seat), None)

    def winning_hand(self, award: Award) -> ReadHand | None:
        """The hand that won ``award``: the low for a low half, the high for a high half, for a
        whole pot the high (the low in a low-only game); None without a showdown."""
        hands = self.hand_of(award.seat)
        if hands is None:
            return None
        if award.share is Share.LOW:
            return hands.low
        if award.share is Share.HIGH:
            return hands.high
        return hands.high if hands.high is not None else hands.low

    @classmethod
    def from_json(cls, value: object) -> PotReading:
        # List comprehensions, not generator expressions: inlined since Python 3.12, and a reading
        # is read back for every hand the replay audit re-decides.
        data = as_object(value, "reading", _POT_KEYS)
        pots = tuple(
            [_pot(p, ("reading.pots", i)) for i, p in enumerate(as_list(data["pots"], "reading.pots"))]
        )
        hands = tuple(
            [
                _seat_hands(seat_key(key, "reading.hands"), raw, ("reading.hands", key))
                for key, raw in as_object(data["hands"], "reading.hands").items()
            ]
        )
        nets = seat_ints(data["net"], "reading.net")
        returned = tuple(
            [
                _returned(r, ("reading.returned", i))
                for i, r in enumerate(as_list(data["returned"], "reading.returned"))
            ]
        )
        if cls is PotReading:
            return _new_pot_reading(pots, hands, nets, returned)
        return cls(pots, hands, nets, returned)

    def to_json(self) -> dict[str, Any]:
        return {
            "pots": [_pot_json(p) for p in self.pots],
            "hands": {
                str(h.seat): {
                    "high": h.high.name if h.high is not None else None,
                    "high_cards": list(h.high.card_texts) if h.high is not None else None,
                    "low": h.low.name if h.low is not None else None,
                    "low_cards": list(h.low.card_texts) if h.low is not None else None,
                }
                for h in self.hands
            },
            "net": {str(seat): cents for seat, cents in self.seat_nets},
            "returned": [
                {"seat": r.seat, "amount": r.amount} | ({"reason": r.reason} if r.reason is not None else {})
                for r in self.returned
            ],
        }


_POT_KEYS: Final = frozenset({"pots", "hands", "net", "returned"})
_POT_ITEM_KEYS: Final = frozenset({"amount", "seats", "awards"})
_AWARD_KEYS: Final = frozenset({"seat", "amount", "share"})
_HANDS_KEYS: Final = frozenset({"high", "high_cards", "low", "low_cards"})
_RETURNED_KEYS: Final = frozenset({"seat", "amount"})


def _pot(value: object, where: Where) -> ReadPot:
    data = as_object(value, where, _POT_ITEM_KEYS, optional=("voided",))
    awards = tuple(
        [_award(a, (where, "awards", i)) for i, a in enumerate(as_list(data["awards"], where, key="awards"))]
    )
    voided = as_int(data["voided"], where, key="voided") if "voided" in data else None
    return _new_pot(
        as_int(data["amount"], where, key="amount"),
        seat_list(data["seats"], where, key="seats"),
        awards,
        voided,
    )


def _pot_json(pot: ReadPot) -> dict[str, Any]:
    out: dict[str, Any] = {
        "amount": pot.amount,
        "seats": list(pot.seats),
        "awards": [{"seat": a.seat, "amount": a.amount, "share": str(a.share)} for a in pot.awards],
    }
    if pot.voided is not None:
        out["voided"] = pot.voided
    return out


def _award(value: object, where: Where) -> Award:
    data = as_object(value, where, _AWARD_KEYS)
    seat, amount, share = data["seat"], data["amount"], data["share"]
    if type(seat) is int and type(amount) is int and type(share) is str and share in _SHARES:
        return _new_award(seat, amount, _SHARES[share])
    # Something is wrong: the checks in their order, the first failing one named.
    if type(share) is not str or share not in _SHARES:
        raise ShowdownError(f"{path(where, 'share')} must be one of {', '.join(_SHARES)}, got {share!r}")
    return _new_award(
        as_int(data["seat"], where, key="seat"), as_int(data["amount"], where, key="amount"), _SHARES[share]
    )


_SHARES: Final = {str(s): s for s in Share}


def _seat_hands(seat: int, value: object, where: Where) -> SeatHands:
    data = as_object(value, where, _HANDS_KEYS)
    return _new_seat_hands(
        seat,
        _read_hand(data, "high", "high_cards", where),
        _read_hand(data, "low", "low_cards", where),
    )


def _read_hand(data: Mapping[str, Any], side: str, cards_key: str, where: Where) -> ReadHand | None:
    name, cards = data[side], data[cards_key]
    if type(name) is str and type(cards) is list:
        try:  # a name and every card a card's own text (the engine's): nothing more to check
            return _new_read_hand(name, tuple([_CANONICAL_CARDS[text] for text in cards]))
        except (KeyError, TypeError):
            pass  # not a card's text: the checks below say which
    if name is None and cards is None:
        return None
    if name is None or cards is None:
        raise ShowdownError(
            f"{path(where, side)}: a hand's name and its cards are given together (got one without the other)"
        )
    return _new_read_hand(as_str(name, where, side), _cards(cards, (where, cards_key)))


def _returned(value: object, where: Where) -> ReturnedChips:
    data = as_object(value, where, _RETURNED_KEYS, optional=("reason",))
    reason = as_str(data["reason"], where, key="reason") if "reason" in data else None
    return _new_returned(
        as_int(data["seat"], where, key="seat"), as_int(data["amount"], where, key="amount"), reason
    )


# --------------------------------------------------------------------------------------
# Chinese poker
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChineseSeat:
    """One seat of a Chinese poker reading.

    Attributes:
        position: 1 for the button player (P1), then clockwise.
        status: set, fouled, sweep or surrendered.
        foul: why the hand fouled (None unless fouled).
        declared: what was declared (a sweep's name, or ``"any"``), None without a declaration.
        sweep: the clean sweep that counts (None unless the status is sweep).
        sweep_value: its points (0 without).
        segments: the front, middle and back hands' names (a set hand, or a hand fouled by its
            order); None when there are no three hands to read.
        points: the seat's points over all its pairs.
        net: received minus paid, in cents.
    """

    seat: int
    position: int
    status: Status
    foul: str | None
    declared: str | None
    sweep: SweepKind | None
    sweep_value: int
    segments: tuple[str, str, str] | None
    points: int
    net: int

    @property
    def fouled(self) -> bool:
        return self.status is Status.FOULED


@dataclass(frozen=True, slots=True)
class ChineseReading(Reading):
    """A Chinese poker reading: ``rules`` the rule set's name; ``players`` by position (P1
    first); ``matchups`` every pair in settlement order (sweep pairs first; points from the first
    seat's side); ``chinese_payments`` in settlement order."""

    rules: str
    players: tuple[ChineseSeat, ...]
    matchups: tuple[Matchup, ...]
    chinese_payments: tuple[Payment, ...]

    @property
    def kind(self) -> EngineKind:
        return EngineKind.CHINESE

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players)

    @property
    def net(self) -> dict[int, int]:
        return {p.seat: p.net for p in self.players}

    @property
    def payments(self) -> tuple[Payment, ...]:
        return self.chinese_payments

    def player(self, seat: int) -> ChineseSeat | None:
        return next((p for p in self.players if p.seat == seat), None)

    @classmethod
    def from_json(cls, value: object) -> ChineseReading:
        data = as_object(value, "reading", _CHINESE_KEYS)
        players = tuple(
            _chinese_seat(seat_key(key, "reading.players"), raw, ("reading.players", key))
            for key, raw in as_object(data["players"], "reading.players").items()
        )
        matchups = tuple(
            _matchup(m, ("reading.matchups", i))
            for i, m in enumerate(as_list(data["matchups"], "reading.matchups"))
        )
        return cls(as_str(data["rules"], "reading.rules"), players, matchups, _payments(data["payments"]))

    def to_json(self) -> dict[str, Any]:
        return {
            "game": CHINESE_GAME,
            "rules": self.rules,
            "players": {
                str(p.seat): {
                    "fouled": p.fouled,
                    "sweep": str(p.sweep) if p.sweep is not None else None,
                    "segments": dict(zip(_SEGMENTS, p.segments or (None, None, None), strict=True)),
                    "points": p.points,
                    "net": p.net,
                    "position": p.position,
                    "status": str(p.status),
                    "foul": p.foul,
                    "declared": p.declared,
                    "sweep_value": p.sweep_value,
                }
                for p in self.players
            },
            "matchups": [
                {
                    "seats": list(m.seats),
                    "points": m.points.to_json(),
                    "total": m.total,
                    "kind": "sweep" if m.sweep else "pair",
                }
                for m in self.matchups
            ],
            "payments": [p.to_json() for p in self.chinese_payments],
        }


_CHINESE_KEYS: Final = frozenset({"game", "rules", "players", "matchups", "payments"})
_CHINESE_SEAT_KEYS: Final = frozenset(
    {"fouled", "sweep", "segments", "points", "net", "position", "status", "foul", "declared", "sweep_value"}
)
_SEGMENTS: Final = ("front", "middle", "back")
_MATCHUP_KEYS: Final = frozenset({"seats", "points", "total", "kind"})
_POINT_NAMES: Final = tuple(MatchupPoints().to_json())
_POINT_KEYS: Final = frozenset(_POINT_NAMES)
_SEGMENT_KEYS: Final = frozenset(_SEGMENTS)
_STATUSES: Final = {str(s): s for s in Status}
_SWEEPS: Final = {str(k): k for k in SweepKind}


def _chinese_seat(seat: int, value: object, where: Where) -> ChineseSeat:
    data = as_object(value, where, _CHINESE_SEAT_KEYS)
    status = _STATUSES.get(data["status"]) if type(data["status"]) is str else None
    if status is None:
        raise ShowdownError(
            f"{path(where, 'status')} must be one of {', '.join(_STATUSES)}, got {data['status']!r}"
        )
    fouled = as_bool(data["fouled"], where, key="fouled")
    if fouled != (status is Status.FOULED):
        raise ShowdownError(f"{path(where, 'fouled')} is {str(fouled).lower()} but the status is {status}")
    raw_sweep = data["sweep"]
    sweep = None
    if raw_sweep is not None:
        sweep = _SWEEPS.get(raw_sweep) if type(raw_sweep) is str else None
        if sweep is None:
            raise ShowdownError(f"{path(where, 'sweep')}: not a clean sweep the engine knows: {raw_sweep!r}")
    segs = as_object(data["segments"], where, _SEGMENT_KEYS, key="segments")
    names = [opt_str(segs[s], (where, "segments"), s) for s in _SEGMENTS]
    segments: tuple[str, str, str] | None = None
    if any(n is not None for n in names):
        front, middle, back = names
        if front is None or middle is None or back is None:
            raise ShowdownError(f"{path(where, 'segments')}: three hands are read or none ({names})")
        segments = (front, middle, back)
    return _new_chinese_seat(
        seat,
        as_int(data["position"], where, key="position"),
        status,
        opt_str(data["foul"], where, key="foul"),
        opt_str(data["declared"], where, key="declared"),
        sweep,
        as_int(data["sweep_value"], where, key="sweep_value"),
        segments,
        as_int(data["points"], where, key="points"),
        as_int(data["net"], where, key="net"),
    )


def _matchup(value: object, where: Where) -> Matchup:
    data = as_object(value, where, _MATCHUP_KEYS)
    seats = seat_list(data["seats"], where, key="seats")
    if len(seats) != 2:
        raise ShowdownError(f"{path(where, 'seats')}: a pair is two seats, got {list(seats)}")
    raw_points = as_object(data["points"], where, _POINT_KEYS, key="points")
    points = _new_points(*(as_int(raw_points[n], (where, "points"), n) for n in _POINT_NAMES))
    total = as_int(data["total"], where, key="total")
    if total != points.total:
        raise ShowdownError(f"{path(where, 'total')} is {total}, the points add up to {points.total}")
    kind = data["kind"]
    if kind not in ("sweep", "pair"):
        raise ShowdownError(f"{path(where, 'kind')} must be 'sweep' or 'pair', got {kind!r}")
    return _new_matchup((seats[0], seats[1]), kind == "sweep", points, total)


# --------------------------------------------------------------------------------------
# Taiwanese poker
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaiwaneseBoardHands:
    """A seat's three hands on one board: top, middle and bottom, each five cards with the board."""

    top: ReadHand
    middle: ReadHand
    bottom: ReadHand

    def rows(self) -> tuple[tuple[Position, ReadHand], ...]:
        return ((Position.TOP, self.top), (Position.MIDDLE, self.middle), (Position.BOTTOM, self.bottom))


@dataclass(frozen=True, slots=True)
class TaiwaneseSeat:
    """One seat of a Taiwanese poker reading: its hands per board (board 1 first) and its net."""

    seat: int
    boards: tuple[TaiwaneseBoardHands, ...]
    net: int


@dataclass(frozen=True, slots=True)
class TaiwaneseReading(Reading):
    """A Taiwanese poker reading: ``players`` clockwise from the button; ``positions`` board by
    board, top, middle, bottom and the scoop (when one was won); ``taiwanese_payments`` in
    settlement order."""

    players: tuple[TaiwaneseSeat, ...]
    positions: tuple[PositionResult, ...]
    taiwanese_payments: tuple[Payment, ...]

    @property
    def kind(self) -> EngineKind:
        return EngineKind.TAIWANESE

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players)

    @property
    def net(self) -> dict[int, int]:
        return {p.seat: p.net for p in self.players}

    @property
    def payments(self) -> tuple[Payment, ...]:
        return self.taiwanese_payments

    @property
    def board_count(self) -> int:
        return max((len(p.boards) for p in self.players), default=0)

    def player(self, seat: int) -> TaiwaneseSeat | None:
        return next((p for p in self.players if p.seat == seat), None)

    @classmethod
    def from_json(cls, value: object) -> TaiwaneseReading:
        data = as_object(value, "reading", _TAIWANESE_KEYS)
        players = tuple(
            _taiwanese_seat(seat_key(key, "reading.players"), raw, ("reading.players", key))
            for key, raw in as_object(data["players"], "reading.players").items()
        )
        positions = tuple(
            _position(p, ("reading.positions", i))
            for i, p in enumerate(as_list(data["positions"], "reading.positions"))
        )
        return cls(players, positions, _payments(data["payments"]))

    def to_json(self) -> dict[str, Any]:
        return {
            "game": TAIWANESE_GAME,
            "players": {
                str(p.seat): {
                    "boards": [
                        {str(pos): {"name": h.name, "cards": list(h.card_texts)} for pos, h in b.rows()}
                        for b in p.boards
                    ],
                    "net": p.net,
                }
                for p in self.players
            },
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
            "payments": [p.to_json() for p in self.taiwanese_payments],
        }


_TAIWANESE_KEYS: Final = frozenset({"game", "players", "positions", "payments"})
_TAIWANESE_SEAT_KEYS: Final = frozenset({"boards", "net"})
_ROWS: Final = ("top", "middle", "bottom")
_ROW_KEYS: Final = frozenset({"name", "cards"})
_ROW_NAMES: Final = frozenset(_ROWS)
_POSITION_KEYS: Final = frozenset(
    {"board", "position", "winners", "hand", "base", "bonus", "points", "paid", "awards"}
)
_PAID_FIELDS: Final = ("seat", "points", "due", "amount")
_PAID_KEYS: Final = frozenset(_PAID_FIELDS)
_POSITION_AWARD_FIELDS: Final = ("seat", "amount")
_POSITION_AWARD_KEYS: Final = frozenset(_POSITION_AWARD_FIELDS)
_POSITIONS: Final = {str(p): p for p in Position}


def _taiwanese_seat(seat: int, value: object, where: Where) -> TaiwaneseSeat:
    data = as_object(value, where, _TAIWANESE_SEAT_KEYS)
    boards = []
    for k, raw in enumerate(as_list(data["boards"], where, key="boards")):
        at: Where = (where, "boards", k)
        rows = as_object(raw, at, _ROW_NAMES)
        boards.append(_new_board_hands(*(_row_hand(rows[row], (at, row)) for row in _ROWS)))
    return _new_taiwanese_seat(seat, tuple(boards), as_int(data["net"], where, key="net"))


def _row_hand(value: object, where: Where) -> ReadHand:
    """A Taiwanese poker hand (``{"name", "cards"}``)."""
    if type(value) is dict and value.keys() == _ROW_KEYS and type(value["name"]) is str:
        return _new_read_hand(value["name"], _cards(value["cards"], (where, "cards")))
    hand = as_object(value, where, _ROW_KEYS)
    return _new_read_hand(as_str(hand["name"], where, "name"), _cards(hand["cards"], (where, "cards")))


def _position(value: object, where: Where) -> PositionResult:
    data = as_object(value, where, _POSITION_KEYS)
    position = _POSITIONS.get(data["position"]) if type(data["position"]) is str else None
    if position is None:
        raise ShowdownError(
            f"{path(where, 'position')} must be one of {', '.join(_POSITIONS)}, got {data['position']!r}"
        )
    base, bonus = as_int(data["base"], where, key="base"), as_int(data["bonus"], where, key="bonus")
    points = as_int(data["points"], where, key="points")
    if points != base + bonus:
        raise ShowdownError(f"{path(where, 'points')} is {points}, not base {base} + bonus {bonus}")
    paid = [
        _new_pay_in(*_ints(raw, (where, "paid", i), _PAID_FIELDS, _PAID_KEYS))
        for i, raw in enumerate(as_list(data["paid"], where, key="paid"))
    ]
    awards = [
        _new_position_award(*_ints(raw, (where, "awards", i), _POSITION_AWARD_FIELDS, _POSITION_AWARD_KEYS))
        for i, raw in enumerate(as_list(data["awards"], where, key="awards"))
    ]
    return _new_position(
        as_int(data["board"], where, key="board"),
        position,
        seat_list(data["winners"], where, key="winners"),
        opt_str(data["hand"], where, key="hand"),
        base,
        bonus,
        tuple(paid),
        tuple(awards),
    )


# --------------------------------------------------------------------------------------
# Payments and JSON values
# --------------------------------------------------------------------------------------

_PAYMENT_FIELDS: Final = ("from", "to", "amount", "due")
_PAYMENT_KEYS: Final = frozenset({*_PAYMENT_FIELDS, "reason"})


def _payments(value: object) -> tuple[Payment, ...]:
    out = []
    for i, raw in enumerate(as_list(value, "reading.payments")):
        where: Where = ("reading.payments", i)
        payer, payee, amount, due = _ints(raw, where, _PAYMENT_FIELDS, _PAYMENT_KEYS)
        out.append(_new_payment(payer, payee, amount, due, as_str(raw["reason"], where, "reason")))
    return tuple(out)


def _ints(value: object, where: Where, names: tuple[str, ...], keys: frozenset[str]) -> list[int]:
    """The integers ``names`` of an object whose keys are exactly ``keys``."""
    data = as_object(value, where, keys)
    got = [data[name] for name in names]
    for name, v in zip(names, got, strict=True):
        if type(v) is not int:
            as_int(v, where, name)  # raises, naming the key
    return got


#: Every card by the text the engine writes for it (``"Ah"``, ``"Tc"``, ``"JK"``): a reading's
#: cards are these spellings, not the other ones a dealer may type (``"ah"``, ``"10h"``).
_CANONICAL_CARDS: Final[dict[str, Card]] = {card.text: card for card in CARD_BY_TEXT.values()}


def _cards(value: object, where: Where) -> tuple[Card, ...]:
    texts = as_list(value, where)
    try:
        return tuple([_CANONICAL_CARDS[text] for text in texts])
    except (KeyError, TypeError):  # not a card's text (TypeError: not even hashable)
        for i, text in enumerate(texts):
            if type(text) is not str or text not in _CANONICAL_CARDS:
                raise ShowdownError(
                    f"{path((where, i))}: {text!r} is not a card as the engine writes it"
                ) from None
        raise


# Positional constructors that skip the frozen dataclasses' per-field object.__setattr__ (a reading
# is read back for every hand an audit replays).
_new_read_hand: Final = maker(ReadHand)
_new_pot_reading: Final = maker(PotReading)
_new_pot: Final = maker(ReadPot)
_new_award: Final = maker(Award)
_new_seat_hands: Final = maker(SeatHands)
_new_returned: Final = maker(ReturnedChips)
_new_chinese_seat: Final = maker(ChineseSeat)
_new_points: Final = maker(MatchupPoints)
_new_matchup: Final = maker(Matchup)
_new_board_hands: Final = maker(TaiwaneseBoardHands)
_new_taiwanese_seat: Final = maker(TaiwaneseSeat)
_new_pay_in: Final = maker(PayIn)
_new_position_award: Final = maker(PositionAward)
_new_position: Final = maker(PositionResult)
_new_payment: Final = maker(Payment)

"""The money a settlement posts, made from a reading: one pure function and its typed result.

A showdown's reading (:mod:`poker.reading`) says who wins what; the floor posts it as ledger lines
in settlement order, each naming the player whose chips move.  :func:`settlement_postings` makes
those lines from the reading, the engine input (what each seat put in) and which player sits in
each seat, and checks them against the engine's nets; :class:`Postings` is what the floor stores
(``HandResult.postings``, ``Postings.to_json()``) and reads back (``Postings.from_json``) to
post it, to show it and to audit it:

* pot games (``kind: pot``): every put-in into the hand's pot in the order of the input's players
  (position order), then each pot's awards (main pot first), then the chips given back (uncalled
  chips, and after-draw chips the sevens rule voided, with the engine's reason); lines of zero are
  left out;
* Chinese and Taiwanese poker (``kind: payments``): the engine's payments in settlement order,
  each ``amount`` after the all-in caps and ``due`` what the points called for; zero payments are
  listed (the ledger doesn't post them).

Both carry ``net``: each dealt seat's chips change, ascending seat.

:meth:`Postings.ledger_lines` is the one derivation of the entries a settlement posts (the
ledger's ``award_pot`` and ``post_payments`` post exactly these, in this order: a put-in as
player -x, pot +x; an award or a return as pot -x, player +x; a payment as payer -x, payee +x;
no zero lines), and :func:`first_line_difference` where two such sequences part.

Player ids are opaque integers here (the floor's ``Player`` ids); nothing in this module knows
the floor.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ._fast import maker
from ._json import Where, as_int, as_list, as_object, path, seat_ints, what
from .errors import ShowdownError
from .pots import Share
from .reading import PotReading, Reading

__all__ = [
    "LedgerLine",
    "LineDifference",
    "PostedAward",
    "PostedPayment",
    "PostedReturn",
    "Postings",
    "PostingsError",
    "PostingsKind",
    "PutIn",
    "first_line_difference",
    "settlement_postings",
]


class PostingsError(ShowdownError):
    """The settlement lines can't be made from the reading: a seat that was not dealt in, or lines
    that don't give the engine's nets (a reading the engine didn't make)."""


class PostingsKind(StrEnum):
    POT = "pot"  # put-ins into the hand's pot, awards and returns out of it
    PAYMENTS = "payments"  # player to player


@dataclass(frozen=True, slots=True)
class PutIn:
    """A seat's chips into the hand's pot."""

    seat: int
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class PostedAward:
    """A pot's award: ``pot`` 0 is the main pot, ``i`` side pot ``i``."""

    seat: int
    player: int
    amount: int
    pot: int
    share: Share


@dataclass(frozen=True, slots=True)
class PostedReturn:
    """Chips given back out of the pot: uncalled (``reason`` None) or voided by the sevens rule."""

    seat: int
    player: int
    amount: int
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PostedPayment:
    """One payment of a Chinese or Taiwanese poker settlement, in settlement order."""

    from_seat: int
    to_seat: int
    from_player: int
    to_player: int
    amount: int
    due: int
    reason: str

    @property
    def capped(self) -> bool:
        return self.amount != self.due


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One entry of a settlement: ``player``'s chips (the player's id), or the hand's pot (None)."""

    player: int | None
    amount: int

    @property
    def is_pot(self) -> bool:
        return self.player is None


@dataclass(frozen=True, slots=True)
class Postings:
    """The ledger lines of a settlement, in settlement order (see the module's docstring).

    Attributes:
        kind: pot or payments.
        put_ins, awards, returned: a pot game's lines (empty for payments).
        payments: a Chinese or Taiwanese poker settlement's payments (empty for pot games).
        seat_nets: ``(seat, cents)`` of every dealt seat, ascending seat.
    """

    kind: PostingsKind
    put_ins: tuple[PutIn, ...]
    awards: tuple[PostedAward, ...]
    returned: tuple[PostedReturn, ...]
    payments: tuple[PostedPayment, ...]
    seat_nets: tuple[tuple[int, int], ...]

    @property
    def net(self) -> dict[int, int]:
        """Each dealt seat's chips change when settled (cents), ascending seat."""
        return dict(self.seat_nets)

    @property
    def moves_chips(self) -> bool:
        """Whether settling posts anything (a settlement of only zero lines posts nothing)."""
        return bool(self.ledger_lines())

    def ledger_lines(self) -> tuple[LedgerLine, ...]:
        """The entries the settlement posts, in order (zero lines left out)."""
        new = _new_line
        lines: list[LedgerLine] = []
        add = lines.append
        for put_in in self.put_ins:
            if amount := put_in.amount:
                add(new(put_in.player, -amount))
                add(new(None, amount))
        for line in self._out_of_pot():
            if amount := line.amount:
                add(new(None, -amount))
                add(new(line.player, amount))
        for payment in self.payments:
            if amount := payment.amount:
                add(new(payment.from_player, -amount))
                add(new(payment.to_player, amount))
        return tuple(lines)

    def into_pot(self) -> tuple[tuple[int, int], ...]:
        """A pot game's ``(player, cents)`` into the pot, in order (the ledger's ``put_ins``)."""
        return tuple((p.player, p.amount) for p in self.put_ins)

    def out_of_pot(self) -> tuple[tuple[int, int], ...]:
        """A pot game's ``(player, cents)`` out of the pot: the awards, then the returns."""
        return tuple((line.player, line.amount) for line in self._out_of_pot())

    def _out_of_pot(self) -> tuple[PostedAward | PostedReturn, ...]:
        return (*self.awards, *self.returned)

    def transfers(self) -> tuple[tuple[int, int, int], ...]:
        """Chinese and Taiwanese poker: ``(payer, payee, cents)`` of every payment, in order."""
        return tuple((p.from_player, p.to_player, p.amount) for p in self.payments)

    def to_json(self) -> dict[str, Any]:
        """The object the floor stores (``HandResult.postings``)."""
        out: dict[str, Any] = {"kind": str(self.kind)}
        if self.kind is PostingsKind.POT:
            out["put_ins"] = [{"seat": p.seat, "player": p.player, "amount": p.amount} for p in self.put_ins]
            out["awards"] = [
                {"seat": a.seat, "player": a.player, "amount": a.amount, "pot": a.pot, "share": str(a.share)}
                for a in self.awards
            ]
            out["returned"] = [
                {"seat": r.seat, "player": r.player, "amount": r.amount}
                | ({"reason": r.reason} if r.reason is not None else {})
                for r in self.returned
            ]
        else:
            out["payments"] = [
                {
                    "from_seat": p.from_seat,
                    "to_seat": p.to_seat,
                    "from_player": p.from_player,
                    "to_player": p.to_player,
                    "amount": p.amount,
                    "due": p.due,
                    "reason": p.reason,
                }
                for p in self.payments
            ]
        out["net"] = {str(seat): cents for seat, cents in self.seat_nets}
        return out

    @classmethod
    def from_json(cls, value: object) -> Postings:
        """Stored postings, typed.  Raises ShowdownError for an object that is not postings as
        :meth:`to_json` writes them (a missing or unknown key, a value of the wrong type)."""
        if type(value) is not dict:
            raise ShowdownError(f"postings must be an object, got {what(value)}")
        kind = value.get("kind")
        if kind == PostingsKind.POT:
            data = as_object(value, "postings", _POT_KEYS)
            put_ins = tuple(
                [
                    _new_put_in(*_ints(line, ("postings.put_ins", i), _PUT_IN_FIELDS, keys=_PUT_IN_KEYS))
                    for i, line in enumerate(as_list(data["put_ins"], "postings.put_ins"))
                ]
            )
            awards = tuple(
                _award(line, i) for i, line in enumerate(as_list(data["awards"], "postings.awards"))
            )
            returned = tuple(
                _returned(line, i) for i, line in enumerate(as_list(data["returned"], "postings.returned"))
            )
            return _new_postings(
                PostingsKind.POT, put_ins, awards, returned, (), seat_ints(data["net"], "postings.net")
            )
        if kind == PostingsKind.PAYMENTS:
            data = as_object(value, "postings", _PAYMENTS_KEYS)
            payments = tuple(
                _payment(line, i) for i, line in enumerate(as_list(data["payments"], "postings.payments"))
            )
            return _new_postings(
                PostingsKind.PAYMENTS, (), (), (), payments, seat_ints(data["net"], "postings.net")
            )
        raise ShowdownError(f"postings.kind must be 'pot' or 'payments', got {what(kind)}")


def settlement_postings(
    reading: Reading, *, engine_input: Mapping[str, Any], player_of: Mapping[int, int]
) -> Postings:
    """The settlement of ``reading``, checked against the engine's nets.

    Args:
        reading: the engine's reading of ``engine_input``.
        engine_input: the showdown input it was read from (a pot game's put-ins come from its
            ``players``, in their order; the other games don't use it).
        player_of: seat -> player id of every seat dealt in (``net`` lists each of them).

    Raises:
        PostingsError: a seat of the reading that is not in ``player_of``; lines that don't give
            each dealt seat exactly the engine's net (or don't sum to zero).
        ShowdownError: a pot game's ``engine_input`` without its players' seats and put-ins.
    """

    def player(seat: int) -> int:
        found = player_of.get(seat)
        if found is None:
            raise PostingsError(f"seat {seat} of the reading was not dealt in (dealt: {sorted(player_of)})")
        return found

    net = dict.fromkeys(player_of, 0)
    put_ins: tuple[PutIn, ...] = ()
    awards: tuple[PostedAward, ...] = ()
    returned: tuple[PostedReturn, ...] = ()
    payments: tuple[PostedPayment, ...] = ()
    if isinstance(reading, PotReading):
        kind = PostingsKind.POT
        put_ins = tuple(
            [_new_put_in(seat, player(seat), amount) for seat, amount in _put_ins(engine_input) if amount > 0]
        )
        awards = tuple(
            [
                _new_award(a.seat, player(a.seat), a.amount, i, a.share)
                for i, pot in enumerate(reading.pots)
                for a in pot.awards
                if a.amount > 0
            ]
        )
        returned = tuple(
            [
                _new_return(r.seat, player(r.seat), r.amount, r.reason)
                for r in reading.returned
                if r.amount > 0
            ]
        )
        for p in put_ins:
            net[p.seat] -= p.amount
        for award in awards:
            net[award.seat] += award.amount
        for back in returned:
            net[back.seat] += back.amount
    else:
        kind = PostingsKind.PAYMENTS
        payments = tuple(
            [
                _new_payment(p.payer, p.payee, player(p.payer), player(p.payee), p.amount, p.due, p.reason)
                for p in reading.payments
            ]
        )
        for pay in payments:
            net[pay.from_seat] -= pay.amount
            net[pay.to_seat] += pay.amount
    engine = reading.net
    expected = {seat: engine.get(seat, 0) for seat in player_of}
    if net != expected or sum(net.values()) != 0:
        raise PostingsError(f"settlement lines give {net}, the engine's nets are {expected}")
    return _new_postings(kind, put_ins, awards, returned, payments, tuple(sorted(net.items())))


@dataclass(frozen=True, slots=True)
class LineDifference[T]:
    """Where two sequences of lines part: ``line`` (1-based) and what each has there (None: the
    sequence ended before it)."""

    line: int
    expected: T | None
    found: T | None


def first_line_difference[T](expected: Sequence[T], found: Sequence[T]) -> LineDifference[T] | None:
    """The first line where ``found`` (e.g. a transaction's entries) differs from ``expected``
    (e.g. :meth:`Postings.ledger_lines`), or None when they are the same."""
    for index in range(max(len(expected), len(found))):
        want = expected[index] if index < len(expected) else None
        got = found[index] if index < len(found) else None
        if want != got:
            return LineDifference(index + 1, want, got)
    return None


# --------------------------------------------------------------------------------------
# Reading the JSON
# --------------------------------------------------------------------------------------

_POT_KEYS: Final = frozenset({"kind", "put_ins", "awards", "returned", "net"})
_PAYMENTS_KEYS: Final = frozenset({"kind", "payments", "net"})
_PUT_IN_FIELDS: Final = ("seat", "player", "amount")
_PUT_IN_KEYS: Final = frozenset(_PUT_IN_FIELDS)
_AWARD_FIELDS: Final = ("seat", "player", "amount", "pot")
_RETURN_FIELDS: Final = ("seat", "player", "amount")
_PAYMENT_FIELDS: Final = ("from_seat", "to_seat", "from_player", "to_player", "amount", "due")
_SHARES: Final = {str(s): s for s in Share}
_AWARD_KEYS: Final = frozenset({*_AWARD_FIELDS, "share"})
_RETURN_KEYS: Final = frozenset(_RETURN_FIELDS)
_RETURN_OPTIONAL: Final = frozenset({"reason"})
_PAYMENT_KEYS: Final = frozenset({*_PAYMENT_FIELDS, "reason"})


def _put_ins(engine_input: Mapping[str, Any]) -> Iterator[tuple[int, int]]:
    players = engine_input.get("players") if isinstance(engine_input, Mapping) else None
    if type(players) is not list:
        raise ShowdownError("engine input: players must be a list of player objects")
    for i, p in enumerate(players):
        # ``type(p) is dict`` first: the engine input is JSON, and an ABC check costs more.
        is_object = type(p) is dict or isinstance(p, Mapping)
        seat, put_in = (p.get("seat"), p.get("put_in")) if is_object else (None, None)
        if type(seat) is not int or type(put_in) is not int:
            raise ShowdownError(f"engine input: players[{i}] needs an integer seat and put_in")
        yield seat, put_in


def _award(value: object, i: int) -> PostedAward:
    where: Where = ("postings.awards", i)
    data = as_object(value, where, _AWARD_KEYS)
    share = _SHARES.get(data["share"]) if type(data["share"]) is str else None
    if share is None:
        raise ShowdownError(
            f"{path(where, 'share')} must be one of {', '.join(_SHARES)}, got {what(data['share'])}"
        )
    seat, player, amount, pot = _ints(data, where, _AWARD_FIELDS, check=False)
    return _new_award(seat, player, amount, pot, share)


def _returned(value: object, i: int) -> PostedReturn:
    where: Where = ("postings.returned", i)
    data = as_object(value, where, _RETURN_KEYS, optional=_RETURN_OPTIONAL)
    reason = data.get("reason")
    if reason is not None and type(reason) is not str:
        raise ShowdownError(f"{path(where, 'reason')} must be a string, got {what(reason)}")
    seat, player, amount = _ints(data, where, _RETURN_FIELDS, check=False)
    return _new_return(seat, player, amount, reason)


def _payment(value: object, i: int) -> PostedPayment:
    where: Where = ("postings.payments", i)
    data = as_object(value, where, _PAYMENT_KEYS)
    if type(data["reason"]) is not str:
        raise ShowdownError(f"{path(where, 'reason')} must be a string, got {what(data['reason'])}")
    from_seat, to_seat, from_player, to_player, amount, due = _ints(data, where, _PAYMENT_FIELDS, check=False)
    return _new_payment(from_seat, to_seat, from_player, to_player, amount, due, data["reason"])


def _ints(
    value: object,
    where: Where,
    names: Sequence[str],
    *,
    check: bool = True,
    keys: frozenset[str] | None = None,
) -> list[int]:
    """The integers ``names`` of an object (which has exactly those keys, or ``keys``, when
    ``check``)."""
    data = as_object(value, where, (keys or frozenset(names)) if check else None)
    got = [data[name] for name in names]
    for name, v in zip(names, got, strict=True):
        if type(v) is not int:
            as_int(v, where, name)  # raises, naming the key
    return got


# Positional constructors that skip the frozen dataclasses' per-field object.__setattr__ (the replay
# audit makes a hand's postings and ledger lines again for every hand it replays).
_new_put_in: Final = maker(PutIn)
_new_award: Final = maker(PostedAward)
_new_return: Final = maker(PostedReturn)
_new_payment: Final = maker(PostedPayment)
_new_line: Final = maker(LedgerLine)
_new_postings: Final = maker(Postings)

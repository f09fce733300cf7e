"""A showdown's reading in words, for people: the one presenter of the dealer terminal's reading
panel and of the hand history (its table, its one-line summary, its exports).

``reading_words(reading, names, rules=..., money=...)`` turns a typed reading
(:mod:`poker.reading`) into :class:`ReadingWords`: each seat's hands and net, each pot with its
awards (and the hands that won them, the odd chips, the halves), the chips given back, each
Chinese poker pair's points, each Taiwanese board position, the payments in settlement order, and
:meth:`ReadingWords.summary`, the whole reading on one line.  :func:`postings_words` says the
ledger lines of a settlement (:class:`poker.postings.Postings`) in settlement order.

One way of saying each thing:

* a seat is ``seat 3 (Ana)``, or ``seat 3`` when the seat has no name (:func:`who`);
* a pot is ``main pot`` or ``side pot 1``, ``side pot 2`` ... (:func:`pot_name`);
* a hand is its name and its five cards, ``Full house, kings over sevens (Kh Kd Ks 7h 7c)``, a low
  hand with ``low`` before it (:func:`hand_words`);
* chips given back are ``uncalled chips`` or the engine's reason (the sevens rule).

Money is said by ``money`` (cents -> text; the floor's ``format_cents``), so the engine doesn't
say it a second time; lines that carry an amount keep it in cents beside the text.  Everything
here is pure: the floor gives the names of the seats and the game's :class:`poker.games.GameRules`.

The terminal's panel and the hand history said the same reading in two ways; where they differed
this says it once, as follows (and why):

* naming a seat: the terminal wrote ``seat 3 (Ana)``, ``seat 3 ()`` without a name and, in its
  settlement lines, ``Seat 3 (Ana) puts in`` and ``uncalled chips back to seat 3`` (no name); the
  history ``seat 3 (Ana)``, or ``seat 3``.  Here: the history's rule everywhere, lower case (a
  line is a phrase in a table cell);
* a pot: the terminal ``Main pot``, ``Side pot 1``; the history ``pot 1``, ``pot 2``.  Here the
  terminal's: it is what the dealer calls it;
* a hand: the terminal ``Full house, ... (Kh Kd Ks 7h 7c); low 8-6-4-3-2 (...)``; the history
  ``high Full house, ...: Kh Kd Ks 7h 7c; low ...: ...``.  Here the terminal's, the way the
  awards say the winning hand too;
* the hand that won a whole pot: the history took the high hand, so in razz and lowball (no high
  hand) it named none; here the seat's hands, as the terminal;
* a hi-lo pot without a qualifying low: the terminal's line for it looked for a ``high`` award
  without a ``low`` one, which the engine writes only for a pot too small to halve (under two
  chips), where it was wrong; such a pot is awarded ``whole``, and that is when it is said here;
* Chinese poker: the terminal's words (a sweep ``verified`` with what was declared, a false
  declaration, ``surrendered``), not the history's (which missed a surrender: it looked for the
  status ``surrender``, the engine writes ``surrendered``);
* Taiwanese poker: each hand with its cards and ``board k:`` only with several boards (the
  history's); the terminal named the hands without cards, always with ``board 1:``;
* chips given back: ``uncalled chips`` (the terminal's), not the history's ``not called``; and
  the summary of a reading where nobody paid anybody says each seat's net by seat number (the
  history sorted the seats as text: seat 10 before seat 2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .chinese import Status
from .games import EngineKind, GameRules
from .postings import Postings
from .pots import Award, Share
from .reading import ChineseReading, ChineseSeat, PotReading, ReadHand, Reading, SeatHands, TaiwaneseReading

__all__ = [
    "AwardWords",
    "PairWords",
    "PaymentWords",
    "PositionWords",
    "PotWords",
    "ReadingWords",
    "Said",
    "SeatWords",
    "hand_words",
    "postings_words",
    "pot_name",
    "reading_words",
    "who",
]

Money = Callable[[int], str]


def who(seat: int, names: Mapping[int, str]) -> str:
    """A seat as people say it: ``seat 3 (Ana)``; ``seat 3`` when it has no name."""
    name = names.get(seat, "")
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def pot_name(index: int) -> str:
    """``main pot`` for pot 0, ``side pot i`` for pot ``i``."""
    return "main pot" if index == 0 else f"side pot {index}"


def hand_words(hand: ReadHand, *, low: bool = False) -> str:
    """``Full house, kings over sevens (Kh Kd Ks 7h 7c)``; ``low 8-6-4-3-2 (8c 6c 4c 3h 2s)``."""
    return f"{'low ' if low else ''}{hand.name} ({' '.join(hand.card_texts)})"


def _seat_hands_words(hands: SeatHands | None) -> str:
    if hands is None:
        return ""
    parts = [hand_words(hands.high)] if hands.high is not None else []
    if hands.low is not None:
        parts.append(hand_words(hands.low, low=True))
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Said:
    """One line in words, with the money it is about: ``amount`` (cents; None: no money), and for
    a payment ``due`` (what the points called for; the caps may have let less move)."""

    text: str
    amount: int | None = None
    due: int | None = None

    @property
    def capped(self) -> bool:
        return self.due is not None and self.amount != self.due


@dataclass(frozen=True, slots=True)
class AwardWords:
    """A pot's award: who, which share, how much, and the name of the hand that won it ("" when
    nobody showed a hand)."""

    seat: int
    who: str
    share: Share
    amount: int
    hand: str


@dataclass(frozen=True, slots=True)
class PotWords:
    """A pot: ``title`` (``Main pot``, ``Side pot 1``), its amount, the seats that could win it,
    the after-draw chips voided from it (sevens rule; None: none), its awards and its lines: each
    share to whom with what, the odd chips and why."""

    title: str
    amount: int
    seats: tuple[int, ...]
    voided: int | None
    awards: tuple[AwardWords, ...]
    lines: tuple[Said, ...]


@dataclass(frozen=True, slots=True)
class PairWords:
    """A Chinese poker pair: ``seat 1 (A) v seat 2 (B)``, its kind (``pair`` or ``sweep``), its
    points segment by segment from the first seat's side, and who wins how many points."""

    title: str
    kind: str
    detail: str
    verdict: str


@dataclass(frozen=True, slots=True)
class PositionWords:
    """A Taiwanese poker board position (or scoop): who wins it with what hand, for how many
    points, who paid what (``capped``: the caps let less move than was due)."""

    title: str
    verdict: str
    hand: str
    points: str
    paid: str
    capped: bool


@dataclass(frozen=True, slots=True)
class SeatWords:
    """A seat: its name, its hand(s) in words ("" when none was read), its points (Chinese poker;
    else None) and its net."""

    seat: int
    name: str
    who: str
    text: str
    points: int | None
    net: int


@dataclass(frozen=True, slots=True)
class PaymentWords:
    """A payment of a Chinese or Taiwanese poker settlement, in settlement order."""

    payer: str
    payee: str
    amount: int
    due: int
    reason: str

    @property
    def capped(self) -> bool:
        return self.amount < self.due

    @property
    def text(self) -> str:
        return f"{self.payer} pays {self.payee}"


@dataclass(frozen=True, slots=True)
class ReadingWords:
    """A reading in words (see the module's docstring); the parts a game doesn't have are empty.

    Attributes:
        kind: the engine kind (the shape of the reading).
        seats: every seat of the reading in its order (pot games: every player, folded ones
            too, ``text`` "" for a hand not read).
        pots, returned: a pot game's pots and the chips given back (``amount`` > 0).
        pairs: Chinese poker's pairs in settlement order.
        positions: Taiwanese poker's board positions in order.
        payments: Chinese and Taiwanese poker's payments in settlement order.
    """

    kind: EngineKind
    seats: tuple[SeatWords, ...]
    pots: tuple[PotWords, ...]
    returned: tuple[Said, ...]
    pairs: tuple[PairWords, ...]
    positions: tuple[PositionWords, ...]
    payments: tuple[PaymentWords, ...]
    money: Money

    def seat(self, seat: int) -> SeatWords | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def summary(self) -> str:
        """The reading on one line: each pot with its awards and the hands that won them, the
        chips given back, each payment (what was due when the caps let less move); a reading with
        none of these (nobody paid anybody) says each seat's net, by seat number."""
        money = self.money
        parts = []
        for pot in self.pots:
            awards = ", ".join(
                f"{a.who} {a.share} {money(a.amount)}" + (f" with {a.hand}" if a.hand else "")
                for a in pot.awards
            )
            parts.append(f"{pot.title.lower()} {money(pot.amount)}: {awards or 'no award'}")
        parts += [f"{line.text} {money(line.amount or 0)}" for line in self.returned]
        for p in self.payments:
            capped = f" (due {money(p.due)})" if p.capped else ""
            parts.append(f"{p.text} {money(p.amount)}{capped}" + (f", {p.reason}" if p.reason else ""))
        if not parts:
            parts = [f"{s.who} net {money(s.net)}" for s in sorted(self.seats, key=lambda s: s.seat)]
        return "; ".join(parts)


def reading_words(
    reading: Reading, names: Mapping[int, str], *, rules: GameRules, money: Money
) -> ReadingWords:
    """``reading`` in words.

    Args:
        reading: the typed reading.
        names: seat -> the name of the player in it.
        rules: the game's rules (a pot game's odd chips go by suit in stud games, clockwise from
            the button in the others; a hi-lo pot without a qualifying low goes whole to high).
        money: cents as people read them (the floor's ``format_cents``).
    """
    if isinstance(reading, PotReading):
        return _pot_words(reading, names, rules, money)
    if isinstance(reading, ChineseReading):
        return _chinese_words(reading, names, money)
    assert isinstance(reading, TaiwaneseReading)
    return _taiwanese_words(reading, names, money)


def postings_words(postings: Postings, names: Mapping[int, str]) -> tuple[Said, ...]:
    """The ledger lines of a settlement in settlement order, each with its amount: ``seat 1 (A)
    puts in``, ``main pot (high half) to seat 3 (C)``, ``uncalled chips back to seat 1 (A)``,
    ``seat 4 (D) pays seat 1 (A) — pair 1-4`` (with what was due)."""
    lines = [Said(f"{who(p.seat, names)} puts in", p.amount) for p in postings.put_ins]
    for a in postings.awards:
        share = "" if a.share is Share.WHOLE else f" ({a.share} half)"
        lines.append(Said(f"{pot_name(a.pot)}{share} to {who(a.seat, names)}", a.amount))
    lines += [Said(_returned_text(r.reason, who(r.seat, names)), r.amount) for r in postings.returned]
    for p in postings.payments:
        reason = f" — {p.reason}" if p.reason else ""
        text = f"{who(p.from_seat, names)} pays {who(p.to_seat, names)}{reason}"
        lines.append(Said(text, p.amount, p.due))
    return tuple(lines)


def _returned_text(reason: str | None, whom: str) -> str:
    return f"{reason}: back to {whom}" if reason else f"uncalled chips back to {whom}"


def _payments(reading: Reading, names: Mapping[int, str]) -> tuple[PaymentWords, ...]:
    return tuple(
        PaymentWords(who(p.payer, names), who(p.payee, names), p.amount, p.due, p.reason)
        for p in reading.payments
    )


# --- Pot games ----------------------------------------------------------------------------------------

_SHARE_WORDS = {Share.WHOLE: "the pot", Share.HIGH: "high half", Share.LOW: "low half"}


def _pot_words(reading: PotReading, names: Mapping[int, str], rules: GameRules, money: Money) -> ReadingWords:
    odd_order = "by suit (stud)" if rules.odd_chips_by_suit else "first clockwise from the button"
    pots = []
    for i, pot in enumerate(reading.pots):
        groups: dict[Share, list[Award]] = {}
        for award in pot.awards:
            groups.setdefault(award.share, []).append(award)
        lines: list[Said] = []
        for share, awards in groups.items():
            tie = " (tie)" if len(awards) > 1 else ""
            for award in awards:
                said = _won_with(reading, award) or "everyone else folded, no showdown"
                lines.append(
                    Said(f"{_SHARE_WORDS[share]}{tie} to {who(award.seat, names)}: {said}", award.amount)
                )
            amounts = [a.amount for a in awards]
            if len(set(amounts)) > 1:
                odd = ", ".join(who(a.seat, names) for a in awards if a.amount > min(amounts))
                lines.append(Said(f"odd chip to {odd}: {odd_order}"))
        if Share.HIGH in groups and Share.LOW in groups:
            if sum(a.amount for a in groups[Share.HIGH]) > sum(a.amount for a in groups[Share.LOW]):
                lines.append(Said("the high half takes the odd chip"))
        elif Share.WHOLE in groups and rules.low_qualifies and len(pot.seats) > 1 and reading.showdown:
            lines.append(Said("no qualifying low: the high hand takes the whole pot"))
        awards_said = tuple(
            AwardWords(a.seat, who(a.seat, names), a.share, a.amount, _won_name(reading, a))
            for a in pot.awards
        )
        title = pot_name(i)
        pots.append(
            PotWords(
                title[0].upper() + title[1:], pot.amount, pot.seats, pot.voided, awards_said, tuple(lines)
            )
        )
    returned = tuple(
        Said(_returned_text(r.reason, who(r.seat, names)), r.amount) for r in reading.returned if r.amount
    )
    seats = tuple(
        SeatWords(
            seat, names.get(seat, ""), who(seat, names), _seat_hands_words(reading.hand_of(seat)), None, cents
        )
        for seat, cents in reading.net.items()
    )
    return ReadingWords(EngineKind.POT, seats, tuple(pots), returned, (), (), (), money)


def _won_with(reading: PotReading, award: Award) -> str:
    """The hand that won ``award`` in words ("" without a showdown): a half's hand; for a whole
    pot every hand of the seat (an uncontested side pot of a hi-lo game names both)."""
    if award.share is Share.WHOLE:
        return _seat_hands_words(reading.hand_of(award.seat))
    hand = reading.winning_hand(award)
    return hand_words(hand, low=award.share is Share.LOW) if hand is not None else ""


def _won_name(reading: PotReading, award: Award) -> str:
    hand = reading.winning_hand(award)
    return hand.name if hand is not None else ""


# --- Chinese poker ------------------------------------------------------------------------------------


def _chinese_seat_text(p: ChineseSeat) -> str:
    """Set hands, a sweep (verified), a surrender, a foul and why (a false declaration says what
    was declared)."""
    if p.status is Status.SURRENDERED:
        return "surrendered"
    if p.status is Status.FOULED:
        if p.declared:
            return f"false declaration ({p.declared}): {p.foul or 'not held'}"
        return f"fouled: {p.foul or 'fouled'}"
    if p.status is Status.SWEEP:
        return f"clean sweep: {p.sweep} (declared {p.declared or p.sweep}, verified)"
    return " / ".join(f"{row} {name}" for row, name in zip(_ROWS, p.segments or (), strict=False))


_ROWS = ("front", "middle", "back")


def _chinese_words(reading: ChineseReading, names: Mapping[int, str], money: Money) -> ReadingWords:
    seats = tuple(
        SeatWords(p.seat, names.get(p.seat, ""), who(p.seat, names), _chinese_seat_text(p), p.points, p.net)
        for p in reading.players
    )
    pairs = []
    for m in reading.matchups:
        a, b = (who(seat, names) for seat in m.seats)
        detail = ", ".join(f"{name} {value:+d}" for name, value in m.points.to_json().items() if value)
        total = m.total
        plural = "s" if abs(total) != 1 else ""
        verdict = (
            f"{a} wins {total} point{plural}"
            if total > 0
            else f"{b} wins {-total} point{plural}"
            if total
            else "push"
        )
        pairs.append(
            PairWords(f"{a} v {b}", "sweep" if m.sweep else "pair", detail or "every segment even", verdict)
        )
    return ReadingWords(EngineKind.CHINESE, seats, (), (), tuple(pairs), (), _payments(reading, names), money)


# --- Taiwanese poker ----------------------------------------------------------------------------------


def _taiwanese_words(reading: TaiwaneseReading, names: Mapping[int, str], money: Money) -> ReadingWords:
    several = reading.board_count > 1
    seats = []
    for player in reading.players:
        boards = [
            (f"board {k}: " if several else "") + " / ".join(f"{pos} {hand_words(h)}" for pos, h in b.rows())
            for k, b in enumerate(player.boards, start=1)
        ]
        seats.append(
            SeatWords(
                player.seat,
                names.get(player.seat, ""),
                who(player.seat, names),
                "; ".join(boards),
                None,
                player.net,
            )
        )
    positions = []
    for p in reading.positions:
        if len(p.winners) > 1:
            verdict = f"tie: {', '.join(who(s, names) for s in p.winners)}"
        elif p.winners:
            verdict = f"{who(p.winners[0], names)} wins"
        else:
            verdict = "nobody wins"
        paid = ", ".join(f"{who(x.seat, names)} {money(x.amount)}" for x in p.paid if x.amount)
        bonus = f" + {p.bonus} bonus" if p.bonus else ""
        positions.append(
            PositionWords(
                f"board {p.board} {p.position}",
                verdict,
                p.hand or "",
                f"{p.points} point{'' if p.points == 1 else 's'} ({p.base}{bonus})",
                paid or "nobody pays",
                any(x.amount != x.due for x in p.paid),
            )
        )
    return ReadingWords(
        EngineKind.TAIWANESE, tuple(seats), (), (), (), tuple(positions), _payments(reading, names), money
    )

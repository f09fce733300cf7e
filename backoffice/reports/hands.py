"""Hand history: each hand of the period as an auditor checks a dispute from it: its number, game,
button and dealer, the players dealt in with their fees, every player's exposed cards as the
dealer entered them (Chinese poker: the three set hands or the declared sweep, with the time the
declaration was recorded; Taiwanese poker: the hands and the boards agreed before the deal), the
engine's reading (the hand's name and its five cards), the pots and their awards, or the payments
in settlement order with what each owed and what the caps let move, each player's net, and the
ledger's postings for the hand (transaction ids and hashes). Money is in dollars on the page.

Everything comes from the records: the showdown as entered (``HandResult.submitted``), the input
the engine was given (``engine_input``; its sha256 is ``input_digest``), the engine's answer
(``engine_result``, read back typed by :mod:`poker.reading` and said by the engine's one presenter,
:mod:`poker.reading_words`, as the dealer terminal says it), the ledger lines the reading posts
(``postings``) and the entries of every transaction of the hand (fee, settlement, fee returned on a
misdeal). A reading the engine can't read back is shown as nothing rather than guessed at. A void
hand shows its misdeal code (:class:`tables.choices.MisdealReason`) and the dealer's words.

A page of hands is read with a fixed number of queries (hands; their players; their ledger entries;
their waivers; their readings; the players' renames), whatever the page size.

Every name on a hand is the name the player had when the hand was dealt (a player renamed since
reads as they were then: :mod:`tables.player_names`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any, Final

from django.db.models import Sum

from backoffice.reports.common import RateBook, ReportFilters, ReportMeta, in_report_snapshot, make_meta
from casino.core.money import format_cents
from ledger.models import SETTLEMENT_KINDS, AccountKind, Entry, FeeWaiver, TransactionKind
from ledger.shifts import Shift
from poker.errors import ShowdownError
from poker.games import GAME_RULES, GameRules
from poker.reading import Reading
from poker.reading_words import ReadingWords, reading_words
from tables.choices import MisdealReason
from tables.models import Hand, HandPlayer, HandResult
from tables.player_names import NameHistory, name_history

TITLE = "Hand history"
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
#: The kinds of the transactions that settle a hand, from the ledger's one map of them.
SETTLING_KINDS: Final = frozenset(SETTLEMENT_KINDS.values())


@dataclasses.dataclass(frozen=True, slots=True)
class HandPlayerLine:
    """A player dealt in: fees, the cards as entered, the engine's reading, the net.

    ``result_cents`` is what the ledger's settlement moved for the player (the net of the hand
    without the fee); ``engine_net_cents`` the engine's net (None: no reading)."""

    position: int
    seat: int
    player_id: int
    player: str
    fee_due_cents: int | None
    fee_paid_cents: int
    result_cents: int
    engine_net_cents: int | None
    cards: str
    reading: str
    sweep_declared: str
    sweep_declared_at: dt.datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class AwardLine:
    """A share of a pot: who (``who``: the seat as the reading says it), which half (``high``,
    ``low``, ``whole``), how much, with what hand (its name; "" without a showdown)."""

    seat: int
    player: str
    who: str
    share: str
    amount_cents: int
    hand: str


@dataclasses.dataclass(frozen=True, slots=True)
class PotLine:
    """A pot, main pot first (``number`` 1; ``title``: ``Main pot``, ``Side pot 1``, ...)."""

    number: int
    title: str
    amount_cents: int
    seats: list[int]
    voided_cents: int
    awards: list[AwardLine]


@dataclasses.dataclass(frozen=True, slots=True)
class ReturnLine:
    """Chips given back: nobody called them (``reason`` ``uncalled chips``), or the sevens rule
    voided them (the engine's reason); ``text`` says it."""

    seat: int
    player: str
    amount_cents: int
    reason: str
    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class SettlementPayment:
    """One payment of a Chinese or Taiwanese poker settlement, in settlement order: what the points
    called for (``due_cents``) and what moved after the all-in caps (``amount_cents``); ``payer``
    and ``payee`` name the seats as the reading says them."""

    order: int
    from_seat: int
    from_player: str
    payer: str
    to_seat: int
    to_player: str
    payee: str
    due_cents: int
    amount_cents: int
    reason: str

    @property
    def capped(self) -> bool:
        return self.amount_cents < self.due_cents


@dataclasses.dataclass(frozen=True, slots=True)
class PaymentLine:
    """One entry of a transaction of the hand, in posting order (``account``: whose chips, the
    hand's pot, the house's collection)."""

    transaction_id: int
    kind: str
    transaction_hash: str
    line: int
    account: str
    player: str
    amount_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandLine:
    hand_id: int
    table_number: int
    hand_number: int
    started_at: dt.datetime
    shift: str
    game: str
    stakes: str
    schedule: str
    rate: str
    status: str
    button_seat: int
    button_player: str
    dealer: str
    players: list[HandPlayerLine]
    board: str
    boards: list[str]
    boards_agreed: int | None
    pots: list[PotLine]
    returned: list[ReturnLine]
    settlement: list[SettlementPayment]
    fees_due_cents: int | None
    fees_paid_cents: int
    fees_returned_cents: int
    waived_cents: int
    reading_status: str
    revision: int | None
    input_digest: str
    reading: str
    settlement_id: int | None
    settlement_hash: str
    payments: list[PaymentLine]
    misdeal_reason: str
    misdeal_label: str
    void_reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class HandHistory:
    meta: ReportMeta
    total: int
    offset: int
    limit: int
    hands: list[HandLine]


@in_report_snapshot
def build_hand_history(
    filters: ReportFilters, *, offset: int = 0, limit: int = DEFAULT_LIMIT, hand_id: int | None = None
) -> HandHistory:
    """Hands of the period in start order, ``limit`` of them from ``offset`` (``limit`` is capped at
    ``MAX_LIMIT``); with ``hand_id``, only that hand (if it is in the period)."""
    offset, limit = max(int(offset), 0), min(max(int(limit), 1), MAX_LIMIT)
    meta = make_meta("hand_history", TITLE, filters, **({"hand": hand_id} if hand_id is not None else {}))
    hands_qs = filters.on_time(Hand.objects.all(), "created_at", table_field="table")
    if hand_id is not None:
        hands_qs = hands_qs.filter(pk=hand_id)
    total = hands_qs.count()
    hands = list(
        hands_qs.select_related(
            "table", "game", "stakes", "collection_schedule", "button_seat", "dealer"
        ).order_by("created_at", "pk")[offset : offset + limit]
    )
    ids = [hand.pk for hand in hands]
    players: dict[int, list[HandPlayer]] = defaultdict(list)
    for hand_player in (
        HandPlayer.objects.filter(hand_id__in=ids)
        .select_related("player", "seat")
        .order_by("hand_id", "position")
    ):
        players[hand_player.hand_id].append(hand_player)
    names = name_history(
        {hp.player_id: hp.player.name for dealt in players.values() for hp in dealt},
        since=min((hand.created_at for hand in hands), default=None),
    )
    started = {hand.pk: hand.created_at for hand in hands}

    def name_at(player_id: int, hand_id: int, today: str) -> str:
        """A player's name at the hand's start (one not dealt in: as named today)."""
        return names.at(player_id, started[hand_id]) if player_id in names.current else today

    ledger = _ledger(ids, name_at)
    waived = {
        row["hand_id"]: int(row["cents"])
        for row in FeeWaiver.objects.filter(hand_id__in=ids)
        .values("hand_id")
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    }
    results = {
        result.hand_id: result
        for result in HandResult.objects.filter(hand_id__in=ids).select_related("settlement")
    }
    book = RateBook({hand.collection_schedule_id for hand in hands})
    lines = []
    for hand in hands:
        dealt = players.get(hand.pk, [])
        version = book.version_at(hand.collection_schedule_id, hand.created_at)
        version_id = version.pk if version else None
        due = book.fees_due(version_id, hand.stakes_id, len(dealt))
        lines.append(
            _hand_line(
                hand,
                dealt,
                due=due,
                rate=book.rate_label(version_id, hand.stakes_id, len(dealt)),
                result=results.get(hand.pk),
                ledger=ledger,
                waived_cents=waived.get(hand.pk, 0),
                names=names,
            )
        )
    return HandHistory(meta=meta, total=total, offset=offset, limit=limit, hands=lines)


@dataclasses.dataclass(slots=True)
class _Ledger:
    """Every entry of the page's hands, in posting order, and what it adds up to per hand."""

    fee_paid: dict[tuple[int, int], int] = dataclasses.field(default_factory=lambda: defaultdict(int))
    fees_paid: dict[int, int] = dataclasses.field(default_factory=lambda: defaultdict(int))
    fees_returned: dict[int, int] = dataclasses.field(default_factory=lambda: defaultdict(int))
    results: dict[tuple[int, int], int] = dataclasses.field(default_factory=lambda: defaultdict(int))
    lines: dict[int, list[PaymentLine]] = dataclasses.field(default_factory=lambda: defaultdict(list))


def _ledger(hand_ids: list[int], name_at: Callable[[int, int, str], str]) -> _Ledger:
    """The entries of the hands ``hand_ids``; ``name_at(player, hand, today's name)``: the name a
    chips entry shows."""
    found = _Ledger()
    entries = (
        Entry.objects.filter(transaction__hand_id__in=hand_ids)
        .values(
            "transaction_id",
            "transaction__hand_id",
            "transaction__kind",
            "transaction__hash",
            "transaction__reverses__kind",
            "line",
            "account__kind",
            "account__player_id",
            "account__player__name",
            "account__shift_date",
            "account__shift_code",
            "amount",
        )
        .order_by("transaction_id", "line")
    )
    for entry in entries:
        hand_id, kind, amount = entry["transaction__hand_id"], entry["transaction__kind"], entry["amount"]
        account_kind, player_id = entry["account__kind"], entry["account__player_id"]
        today = entry["account__player__name"] or ""
        name = name_at(player_id, hand_id, today) if player_id is not None else today
        if account_kind == AccountKind.HOUSE_COLLECTION:
            account = f"house collection {entry['account__shift_date']}/{entry['account__shift_code']}"
            if kind == TransactionKind.FEE:
                found.fees_paid[hand_id] += amount
            elif kind == TransactionKind.REVERSAL:
                found.fees_returned[hand_id] += -amount
        elif account_kind == AccountKind.PLAYER_CHIPS:
            account = f"chips of {name}"
            if kind == TransactionKind.FEE:
                found.fee_paid[(hand_id, player_id)] += -amount
            elif kind in SETTLING_KINDS or (
                kind == TransactionKind.REVERSAL and entry["transaction__reverses__kind"] in SETTLING_KINDS
            ):
                found.results[(hand_id, player_id)] += amount
        elif account_kind == AccountKind.HAND_POT:
            account = "the hand's pot"
        else:
            account = str(account_kind)
        found.lines[hand_id].append(
            PaymentLine(
                transaction_id=entry["transaction_id"],
                kind=kind,
                transaction_hash=entry["transaction__hash"],
                line=entry["line"],
                account=account,
                player=name,
                amount_cents=amount,
            )
        )
    return found


def _hand_line(
    hand: Hand,
    dealt: list[HandPlayer],
    *,
    due: list[int] | None,
    rate: str,
    result: HandResult | None,
    ledger: _Ledger,
    waived_cents: int,
    names: NameHistory,
) -> HandLine:
    """One hand; every player named as at the hand's start (``names``)."""
    called = {hp.player_id: names.at(hp.player_id, hand.created_at) for hp in dealt}
    seat_names = {hp.seat.number: called[hp.player_id] for hp in dealt}
    submitted = result.submitted if result is not None and isinstance(result.submitted, dict) else {}
    entered = {
        entry.get("seat"): entry for entry in submitted.get("players") or [] if isinstance(entry, dict)
    }
    rules = GAME_RULES.get(hand.game.slug)
    typed, words = _reading(result, seat_names, rules)
    player_lines = []
    for hp in dealt:
        seat = hp.seat.number
        said = words.seat(seat) if words is not None else None
        player_lines.append(
            HandPlayerLine(
                position=hp.position,
                seat=seat,
                player_id=hp.player_id,
                player=called[hp.player_id],
                fee_due_cents=due[hp.position - 1] if due and hp.position <= len(due) else None,
                fee_paid_cents=ledger.fee_paid.get((hand.pk, hp.player_id), 0),
                result_cents=ledger.results.get((hand.pk, hp.player_id), 0),
                engine_net_cents=typed.net_of(seat) if typed is not None else None,
                cards=entered_cards(entered.get(seat), rules),
                reading=said.text if said is not None else "",
                sweep_declared=hp.sweep_declared,
                sweep_declared_at=hp.sweep_declared_at,
            )
        )
    boards: list[Any] = submitted["boards"] if isinstance(submitted.get("boards"), list) else []
    button = next((hp for hp in dealt if hp.position == 1), None)
    misdeal = hand.misdeal_reason
    return HandLine(
        hand_id=hand.pk,
        table_number=hand.table.number,
        hand_number=hand.number,
        started_at=hand.created_at,
        shift=str(Shift.at(hand.created_at)),
        game=hand.game.name,
        stakes=hand.stakes.label,
        schedule=hand.collection_schedule.code,
        rate=rate,
        status=hand.status,
        button_seat=hand.button_seat.number,
        button_player=called[button.player_id] if button else "",
        dealer=hand.dealer.get_username() if hand.dealer is not None else "",
        players=player_lines,
        board=card_text(submitted.get("board")),
        boards=[card_text(board) for board in boards],
        boards_agreed=hand.boards,
        pots=pot_lines(words, seat_names),
        returned=return_lines(typed, words, seat_names),
        settlement=settlement_payments(typed, words, seat_names),
        fees_due_cents=sum(due) if due is not None else None,
        fees_paid_cents=ledger.fees_paid.get(hand.pk, 0),
        fees_returned_cents=ledger.fees_returned.get(hand.pk, 0),
        waived_cents=waived_cents,
        reading_status=result.get_status_display() if result is not None else "no reading recorded",
        revision=result.revision if result is not None else None,
        input_digest=result.digest if result is not None else "",
        reading=words.summary() if words is not None else "",
        settlement_id=result.settlement_id if result is not None else None,
        settlement_hash=result.settlement.hash if result is not None and result.settlement else "",
        payments=ledger.lines.get(hand.pk, []),
        misdeal_reason=misdeal,
        misdeal_label=MisdealReason(misdeal).label if misdeal in MisdealReason.values else "",
        void_reason=hand.void_reason,
    )


# --- The showdown in words ---------------------------------------------------------------------------


def _reading(
    result: HandResult | None, names: Mapping[int, str], rules: GameRules | None
) -> tuple[Reading | None, ReadingWords | None]:
    """The hand's reading, typed and in words; ``(None, None)`` without one, or with one the engine
    can't read back (or of a game it doesn't know): nothing is shown rather than a guess."""
    if result is None or rules is None:
        return None, None
    try:
        typed = Reading.from_json(result.engine_result)
        return typed, reading_words(typed, names, rules=rules, money=format_cents)
    except ShowdownError:
        return None, None


def card_text(cards: Any) -> str:
    """``["Ah", "Kd"]`` -> ``Ah Kd``; anything else as it was entered (text), or empty."""
    if isinstance(cards, list):
        return " ".join(str(card) for card in cards)
    return "" if cards is None else str(cards)


def entered_cards(entry: Any, rules: GameRules | None) -> str:
    """A player's exposed cards as the dealer entered them in the game of ``rules``: ``Ah Kd``;
    the hands a player sets by row (:attr:`GameRules.rows <poker.games.GameRules.rows>`: Chinese
    poker ``front Jc Jd Js / middle ... / back ...``, Taiwanese poker ``top Qs / middle As Kd /
    bottom ...``); a declared sweep ``declared dragon: 2c 3d ...``, a surrender, a house foul;
    ``folded``."""
    if not isinstance(entry, Mapping):
        return ""
    marks = [
        text
        for key, text in (
            ("fouled", "fouled by the house"),
            ("surrender", "surrendered"),
            ("declare", f"declared {entry.get('declare')}"),
            ("folded", "folded"),
        )
        if entry.get(key)
    ]
    rows = [row.name for row in rules.rows] if rules is not None else []
    if any(name in entry for name in rows):
        cards = " / ".join(f"{name} {card_text(entry.get(name))}" for name in rows if name in entry)
    else:
        cards = card_text(entry.get("cards"))
    mark = ", ".join(marks)
    return f"{mark}: {cards}" if mark and cards else mark or cards


def pot_lines(words: ReadingWords | None, names: Mapping[int, str]) -> list[PotLine]:
    """The pots of a pot game's reading, main pot first, each with its awards and the hand that won."""
    if words is None:
        return []
    return [
        PotLine(
            number=number,
            title=pot.title,
            amount_cents=pot.amount,
            seats=list(pot.seats),
            voided_cents=pot.voided or 0,
            awards=[
                AwardLine(a.seat, names.get(a.seat, ""), a.who, str(a.share), a.amount, a.hand)
                for a in pot.awards
            ],
        )
        for number, pot in enumerate(words.pots, start=1)
    ]


def return_lines(
    typed: Reading | None, words: ReadingWords | None, names: Mapping[int, str]
) -> list[ReturnLine]:
    """The chips a pot game's reading gave back, in its order."""
    if typed is None or words is None:
        return []
    back = [r for r in getattr(typed, "returned", ()) if r.amount]
    return [
        ReturnLine(r.seat, names.get(r.seat, ""), r.amount, r.reason or "uncalled chips", said.text)
        for r, said in zip(back, words.returned, strict=True)
    ]


def settlement_payments(
    typed: Reading | None, words: ReadingWords | None, names: Mapping[int, str]
) -> list[SettlementPayment]:
    """Chinese and Taiwanese poker: the engine's payments in settlement order, dues and caps."""
    if typed is None or words is None:
        return []
    return [
        SettlementPayment(
            order=order,
            from_seat=paid.payer,
            from_player=names.get(paid.payer, ""),
            payer=said.payer,
            to_seat=paid.payee,
            to_player=names.get(paid.payee, ""),
            payee=said.payee,
            due_cents=paid.due,
            amount_cents=paid.amount,
            reason=paid.reason,
        )
        for order, (paid, said) in enumerate(zip(typed.payments, words.payments, strict=True), start=1)
    ]

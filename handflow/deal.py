"""Who is dealt in, and the fees: the plan of a deal (:class:`DealPlan`: the players dealt in,
the button, the rate and each position's fee, decided together), its preview (:func:`preview_fees`:
no writes, no locks) and the deal itself (:func:`start_hand`, which collects the fees under
``hand:<id>:fees``: the only way a hand becomes ``dealt``), with the kill, the joker and Taiwanese
poker's boards agreed before the deal.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from django.utils import timezone

from casino.core.db import service
from casino.core.locks import key_share_lock
from casino.core.money import format_cents
from handflow import locks
from handflow.chips import table_rules
from handflow.keys import fees_key
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from ledger.shifts import Shift
from poker.games import GAME_RULES, GameRules
from poker.kill import KillKind, kill_blind
from tables import services as floor
from tables.buttons import NoFeeBand, choose_dealt, sitting_out
from tables.chip_rules import ChipRules
from tables.choices import MIN_PLAYERS, HandStatus, KillType
from tables.errors import FeesChanged, FloorValidationError, NoCollectionRate, NotEnoughPlayers, TableClosed
from tables.models import (
    ButtonState,
    CollectionRate,
    CollectionSchedule,
    Game,
    Hand,
    HandPlayer,
    Seating,
    Table,
)
from tables.selectors import rate_for
from tables.services import User


@dataclass(frozen=True, slots=True)
class DealtSeat:
    """A player to be dealt in: position 1 is the button; ``chips_cents`` before the fee."""

    seat: int
    position: int
    player_id: int
    player_name: str
    chips_cents: int
    fee_cents: int


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A seated player not dealt into the hand, and why (``reason``: a code)."""

    seat: int
    player_id: int
    player_name: str
    chips_cents: int
    reason: str
    detail: str


@dataclass(frozen=True)
class DealPlan:
    """Who is dealt in, the button, the rate and each position's fee, decided together."""

    table_number: int
    game: str
    at: datetime.datetime
    button: int
    dealt: tuple[DealtSeat, ...]
    left_out: tuple[LeftOut, ...]
    rate: CollectionRate
    rules: ChipRules
    kill_seat: int | None = None
    kill_multiplier_pct: int = 100
    kill_blind_cents: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def total_fees_cents(self) -> int:
        return sum(d.fee_cents for d in self.dealt)

    @property
    def unable_to_pay(self) -> set[int]:
        return {o.seat for o in self.left_out if o.reason == "cannot_pay"}


@dataclass(frozen=True, slots=True)
class Dealt:
    """A hand just dealt: the hand (its table, game, stakes and schedule loaded), the players dealt
    in by position (seat and player loaded) and each one's chips at the table after the fee, by
    player id: what the dealer's response shows, without reading them again."""

    hand: Hand
    players: tuple[HandPlayer, ...]
    chips_after: dict[int, int]


def _kill_for(
    table: Table, buttons: ButtonState | None, dealt: Sequence[int]
) -> tuple[int | None, int, int | None]:
    """(kill seat, multiplier %, kill blind) for the next hand, as the floor's start decides it."""
    kill_seat = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    if kill_seat is None or kill_seat not in dealt or table.stakes.kill == KillType.NONE:
        return None, 100, None
    return kill_seat, table.stakes.kill_multiplier_pct, _kill_blind(table, table.stakes.kill)


def _kill_blind(table: Table, kill: str) -> int | None:
    """The kill blind: the big blind (the small bet of a limit) x1.5 or x2, up to a whole chip."""
    big_blind = table.stakes.small_bet_cents
    if not big_blind or kill == KillType.NONE:
        return None
    return kill_blind(big_blind, str(kill), table.chip_unit_cents)


def hand_kill_blind(hand: Hand) -> int | None:
    """The kill blind the hand's kill seat posted (None: not a kill hand)."""
    if hand.kill_seat_id is None or not hand.stakes.small_bet_cents:
        return None
    kind = KillKind.from_multiplier_pct(hand.kill_multiplier_pct)
    if kind is None or kind is KillKind.NONE:
        return None
    return kill_blind(hand.stakes.small_bet_cents, kind, hand.table.chip_unit_cents)


def _plan_deal(
    *,
    table: Table,
    game: Game,
    seatings: Mapping[int, Seating],
    sit_out: set[int],
    chips: Mapping[int, int],
    buttons: ButtonState | None,
    at: datetime.datetime,
) -> DealPlan:
    """Decide the players dealt in, the button and the fees together (no writes).

    Starting from the seated players who don't sit out: the button moves to the next of them
    clockwise (:func:`tables.buttons.next_button`), the players dealt in follow from it
    (:func:`tables.buttons.deal_order`, up to the game's hands per round), the rate is the one
    of the schedule in force at ``at`` for that many players, and each position's fee follows
    from its payer rule. Who can pay (their fee and keep enough in play,
    :meth:`ChipRules.can_be_dealt_in`) is decided at the band they would actually be dealt at:
    :func:`tables.buttons.choose_dealt` leaves out one short player at a time and lets back in
    anyone who can pay once the band has dropped (a fixed point). Raises NotEnoughPlayers,
    NoCollectionRate.
    """
    rules = table_rules(table)
    left_out: dict[int, LeftOut] = {}

    def leave_out(seat: int, reason: str, detail: str) -> None:
        seating = seatings[seat]
        left_out[seat] = LeftOut(
            seat=seat,
            player_id=seating.player_id,
            player_name=seating.player.name,
            chips_cents=chips.get(seating.player_id, 0),
            reason=reason,
            detail=detail,
        )

    for seat in sorted(sit_out):
        leave_out(seat, "sits_out", "sits this hand out")
    previous = buttons.button_seat.number if buttons is not None and buttons.button_seat else None
    rates: dict[int, CollectionRate | None] = {}

    def fees_for(players: int) -> list[int]:
        if players not in rates:
            rates[players] = rate_for(
                schedule=table.collection_schedule, stakes=table.stakes, players=players, at=at
            )
        rate = rates[players]
        if rate is None:
            raise NoFeeBand(players)
        return rate.fees_by_position(players)

    player_of = {seat: seating.player_id for seat, seating in seatings.items()}
    try:
        choice = choose_dealt(
            eligible=set(seatings) - sit_out,
            previous_button=previous,
            chips={seat: chips.get(pid, 0) for seat, pid in player_of.items()},
            fees_for=fees_for,
            keep_in_play=rules.to_be_dealt_in_cents,
            max_hands=game.max_hands,
            min_players=MIN_PLAYERS,
        )
    except NoFeeBand as missing:
        raise NoCollectionRate(
            f"Schedule {table.collection_schedule.code} has no rate for {table.stakes.label} with "
            f"{missing.players} players; a floor manager must revise it before this hand can be dealt."
        ) from None
    for seat, fee in choice.cannot_pay:
        # ``fee``: the one of their position had they been dealt in with the players who are (the
        # band they would actually have been dealt at).
        have = chips.get(player_of[seat], 0)
        keep = format_cents(rules.to_be_dealt_in_cents)
        leave_out(
            seat,
            "cannot_pay",
            f"has {format_cents(have)}; needs {format_cents(fee + rules.to_be_dealt_in_cents)} "
            f"({format_cents(fee)} fee and {keep} in play)"
            if fee is not None
            else f"has {format_cents(have)}; the schedule has no fee band with room for this player",
        )
    if not choice.dealt:
        reasons = "; ".join(
            f"seat {o.seat}: {o.detail}" for o in sorted(left_out.values(), key=lambda o: o.seat)
        )
        count = len(set(seatings) - set(left_out))
        raise NotEnoughPlayers(
            f"Table {table.number} has {count} player(s) who can be dealt in; a hand needs at "
            f"least {MIN_PLAYERS}." + (f" Not dealt in: {reasons}." if reasons else "")
        )
    button, dealt, fees = choice.button, list(choice.dealt), list(choice.fees)
    eligible = set(seatings) - sit_out - {seat for seat, _fee in choice.cannot_pay}
    rate = rates[len(dealt)]
    # A non-empty choice has a button, and fees_for has found the rate of its band.
    assert button is not None
    assert rate is not None
    for seat in sitting_out(dealt, eligible):
        leave_out(seat, "rotates_out", f"{game.name} deals {game.hands_per_round} hands; dealt in next round")
    kill_seat, kill_pct, kill_blind_cents = _kill_for(table, buttons, dealt)
    return DealPlan(
        table_number=table.number,
        game=game.slug,
        at=at,
        button=button,
        dealt=tuple(
            DealtSeat(
                seat=seat,
                position=position,
                player_id=seatings[seat].player_id,
                player_name=seatings[seat].player.name,
                chips_cents=chips.get(seatings[seat].player_id, 0),
                fee_cents=fee,
            )
            for position, (seat, fee) in enumerate(zip(dealt, fees, strict=True), start=1)
        ),
        left_out=tuple(sorted(left_out.values(), key=lambda o: o.seat)),
        rate=rate,
        rules=rules,
        kill_seat=kill_seat,
        kill_multiplier_pct=kill_pct,
        kill_blind_cents=kill_blind_cents,
    )


TABLE_RELATIONS = ("game", "stakes", "collection_schedule")
"""What a table's rules, fees and screen read of it besides its own row."""


def _check_sit_out(table: Table, seatings: Mapping[int, Seating], sit_out: set[int]) -> None:
    unknown = sorted(sit_out - set(seatings))
    if unknown:
        raise FloorValidationError(
            f"Nobody sits in seat(s) {', '.join(map(str, unknown))} at table {table.number}.",
            field="sit_out_seat_numbers",
        )


def preview_fees(
    *,
    table: Table,
    game: Game | None = None,
    sit_out_seat_numbers: Iterable[int] = (),
    hand_in_progress: bool | None = None,
) -> DealPlan:
    """What starting the next hand now would do: who is dealt in, the button, each fee. No writes.

    Same decision as :func:`start_hand` (which makes it again under the table lock). ``table``:
    the caller's read of it for this request; its game, stakes and schedule are read here unless
    that read brought them (a preview is a snapshot: the deal decides again under the lock and
    refuses fees other than the ones shown). ``hand_in_progress``: whether a hand is in progress at
    the table, when the caller has read it (None: read here); the plan then notes that it is the
    hand after that one. Raises TableClosed, NotEnoughPlayers, NoCollectionRate, ConfigMismatch
    (game).
    """
    if not all(locks.is_cached(table, name) for name in TABLE_RELATIONS):
        table = Table.objects.select_related(*TABLE_RELATIONS).get(pk=table.pk)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed.")
    played = floor.game_for_hand(table, game)
    seatings = locks.seatings(table)
    sit_out = set(sit_out_seat_numbers)
    _check_sit_out(table, seatings, sit_out)
    buttons = ButtonState.objects.select_related("button_seat", "kill_seat").filter(table=table).first()
    plan = _plan_deal(
        table=table,
        game=played,
        seatings=seatings,
        sit_out=sit_out,
        chips=ledger_selectors.table_chips(table=table),
        buttons=buttons,
        at=timezone.now(),
    )
    if hand_in_progress is None:
        hand_in_progress = table.hand_in_progress() is not None
    if hand_in_progress:
        plan.notes.append("A hand is in progress: this is the hand after it, with today's chips.")
    return plan


@service
def start_hand(
    *,
    table: Table,
    by: User,
    game: Game | None = None,
    sit_out_seat_numbers: Iterable[int] = (),
    expected_fees: Mapping[int, int] | None = None,
    boards: int | None = None,
) -> Dealt:
    """Start the next hand with its fees: decide who is dealt in, collect the fees, deal.

    Under the table lock: the players who can pay their fee (and keep enough in play: 9 points at
    Chinese and Taiwanese poker) are dealt in, the others sit this hand out (:func:`_plan_deal`);
    the floor (:func:`tables.services.start_locked`) then
    rotates the buttons and records the hand and its players from exactly that set (so button and
    players dealt in agree). The hand starts at the time of the plan: its ``created_at`` is the
    time whose rate the plan read (:func:`tables.selectors.rate_for_hand` reads the same one), so
    a schedule version taking effect while the hand starts can't leave the fees and the hand's
    rate disagreeing. The fees are collected into the ledger as one transaction (key
    ``hand:<id>:fees``, the house account of the shift the hand started in), each
    :class:`HandPlayer` records its fee and the chips it has in play; and only then is the hand
    ``dealt``; when the band charges nothing the hand records why (``no_fee_reason``) instead.
    This is the only way a hand becomes ``dealt`` (a database trigger refuses any other).

    ``expected_fees``: the fee of each seat dealt in, by seat number, as the dealer was shown and
    confirmed them (:func:`preview_fees`). When given and the deal would now take anything else
    (a schedule version took effect, a player sat down), nothing is written and
    :class:`FeesChanged` says the new fees, to be confirmed again. Every terminal and page sends
    it; None (no check) is for callers with no dealer in front of a screen (tests, data loads).

    ``boards``: Taiwanese poker's boards agreed before the deal (1-3; default 1), recorded with the
    hand; the showdown must bring as many. The hand records its dealer: the one clocked in at the
    table (:func:`tables.services.check_runs_hands`: only they, or the floor, may deal).

    Returns the hand with its players dealt in and their chips after the fee (:class:`Dealt`).
    Raises NotYourTable, TableClosed, HandInProgress, NotEnoughPlayers, NoCollectionRate,
    ConfigMismatch, FeesChanged, FloorValidationError (unknown sit-out seat, boards).
    """
    table = floor.lock_table(table)
    down = floor.check_runs_hands(table, by)
    _hold_schedule(table)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed.")
    number = floor.next_hand_number(table, "start a hand at")
    played = floor.game_for_hand(table, game)
    agreed_boards = _agreed_boards(played, boards)
    seatings = locks.seatings(table)
    sit_out = set(sit_out_seat_numbers)
    _check_sit_out(table, seatings, sit_out)
    chips = ledger_selectors.table_chips(table=table)
    buttons = floor.lock_buttons(table)
    # The schedule row is held (_hold_schedule): no version can be added while the hand starts, and
    # one dated later than ``at`` is not in force at the hand's start, which is ``at``.
    at = timezone.now()
    plan = _plan_deal(
        table=table, game=played, seatings=seatings, sit_out=sit_out, chips=chips, buttons=buttons, at=at
    )
    if agreed_boards is not None:
        _check_deck_holds(_rules(played), agreed_boards, len(plan.dealt))
    if expected_fees is not None:
        _check_fees_as_shown(plan, expected_fees)
    fees = {d.seat: (d.fee_cents, d.chips_cents - d.fee_cents) for d in plan.dealt}
    hand, hand_players = floor.start_locked(
        table=table,
        number=number,
        played=played,
        seatings=seatings,
        buttons=buttons,
        sit_out=sit_out | plan.unable_to_pay,
        by=by,
        created_at=at,
        fees=fees,
    )
    dealt = [hp.seat.number for hp in hand_players]
    if dealt != [d.seat for d in plan.dealt] or hand.button_seat.number != plan.button:
        raise AssertionError(f"the floor dealt {dealt} with button {hand.button_seat.number}, planned {plan}")
    ledger.collect_fees(
        table=table,
        shift=Shift.at(hand.created_at),
        fees=[(hp.player, fees[hp.seat.number][0]) for hp in hand_players],
        hand=hand,
        user=floor.acting_user(by),
        idempotency_key=fees_key(hand),
        memo=f"Table {table.number} hand {hand.number}: collection, {plan.rate.fee_label}",
    )
    columns = floor.move_hand(hand, HandStatus.DEALT, by=by, save=False)
    hand.dealer_shift = down
    hand.dealer = down.dealer if down is not None else floor.acting_user(by)
    hand.boards = agreed_boards
    columns += ["dealer_shift", "dealer", "boards"]
    if not plan.total_fees_cents:
        hand.no_fee_reason = (
            f"{plan.rate.fee_label} for {len(plan.dealt)} players under schedule "
            f"{table.collection_schedule.code} version {plan.rate.version.number}: no fee due"
        )
        columns.append("no_fee_reason")
    if joker_in_deck(table=table, game=played):
        hand.joker = True
        columns.append("joker")
    hand.save(update_fields=columns)
    chips_after = {hp.player_id: fees[hp.seat.number][1] for hp in hand_players}  # chips - fee
    return Dealt(hand, tuple(hand_players), chips_after)


def _rules(game: Game) -> GameRules | None:
    """The engine's rules of ``game`` (None: a game the engine doesn't know, dealt without them)."""
    return GAME_RULES.get(game.slug)


def _agreed_boards(game: Game, boards: object) -> int | None:
    """Boards agreed before the deal (Taiwanese poker: default 1, at most the rules' ``max_boards``);
    None for every other game."""
    rules = _rules(game)
    if rules is None or not rules.agrees_boards:
        if boards is not None:
            raise FloorValidationError(f"{game.name} has no boards to agree.", field="boards")
        return None
    if boards is None:
        return 1
    if not isinstance(boards, int) or isinstance(boards, bool) or not 1 <= boards <= rules.max_boards:
        raise FloorValidationError(f"Agree 1 to {rules.max_boards} boards before the deal.", field="boards")
    return boards


def _check_deck_holds(rules: GameRules | None, boards: int, players: int) -> None:
    """The deck holds each player's cards and the boards agreed (RULINGS §5 doesn't limit the
    boards; the deck does)."""
    hand_cards, board_cards = (rules.hand_cards, rules.board_cards) if rules is not None else (0, 0)
    if hand_cards * players + board_cards * boards > 52:
        raise FloorValidationError(
            f"{boards} boards and {hand_cards} cards to each of {players} players need more than 52 cards.",
            field="boards",
        )


def joker_in_deck(*, table: Table, game: Game) -> bool:
    """Whether the joker is in the deck for ``game`` dealt at ``table`` (:meth:`GameRules.joker_dealt
    <poker.games.GameRules.joker_dealt>`: only a game with a joker, lowball, dealt as the table's
    own game; 004 lowball rule 1: none is added at dealer's choice)."""
    rules = _rules(game)
    return rules is not None and rules.joker_dealt(at_dealers_choice=table.game.is_dealers_choice)


def fees_as_shown(plan: DealPlan) -> dict[int, int]:
    """The fees of ``plan`` as a dealer confirms them: each seat dealt in, its fee."""
    return {d.seat: d.fee_cents for d in plan.dealt}


def _check_fees_as_shown(plan: DealPlan, expected: Mapping[int, int]) -> None:
    now = fees_as_shown(plan)
    if dict(expected) == now:
        return
    shown = ", ".join(f"seat {seat} {format_cents(fee)}" for seat, fee in sorted(expected.items())) or "none"
    due = ", ".join(f"seat {seat} {format_cents(fee)}" for seat, fee in sorted(now.items()))
    raise FeesChanged(
        f"The fees changed since they were shown: now {due} (total {format_cents(plan.total_fees_cents)}, "
        f"{plan.rate.fee_label}); shown {shown}. Nothing was taken: confirm the new fees.",
        field="expected_fees",
    )


def _hold_schedule(table: Table) -> None:
    """PostgreSQL: hold the table's collection schedule row ``FOR KEY SHARE`` until the hand is dealt.

    A new schedule version (:func:`tables.services.revise_schedule`) locks the schedule ``FOR
    UPDATE`` before it takes its ``effective_from`` (now at the earliest): so it either commits
    before this hand plans its fees (and the plan sees it), or waits for the deal and takes effect
    after the hand's start. ``KEY SHARE`` doesn't conflict with itself: hands at the tables sharing
    a schedule don't queue on its row. (The table lock doesn't take the joined schedule, game and
    stakes rows ``FOR UPDATE``.) SQLite serialises whole write transactions: nothing to hold there.
    """
    key_share_lock(CollectionSchedule, [table.collection_schedule_id])

"""The dealer terminal's screen, read once per tap: :func:`terminal_screen` returns a
:class:`TerminalScreen`, everything ``templates/tables/_terminal.html`` and its partials draw.

A selector: it reads (the table's latest hand, who is on duty, the fee preview, the buttons, the
reading on record and the entry's draft) and writes nothing. Its statements are counted per tap
(``tests/web/terminal/test_terminal_queries.py``): what a service just wrote and returned is passed in, so
it isn't read again.

The hand is read once, typed (:func:`handflow.hand_view.hand_view`); the screen is typed (frozen
dataclasses) but for the hand in progress as the templates draw it, which stays the terminal
serializer's dict (:meth:`web.terminal.serializers.TerminalHandSerializer.from_view`): the API
answers with the same data. The reading panel's words are made from the typed view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q

from casino.core.errors import DomainError
from casino.core.money import amount_text, format_cents
from handflow import services as hand_flow
from handflow.services import DealPlan, HandView, hand_view
from poker.games import EngineKind, rules_for
from poker.kill import KillKind, kill_limits
from tables import services as floor
from tables.choices import GameKind, HandStatus, KillType
from tables.games import misdeal_reasons_for
from tables.models import ButtonState, Game, Hand, HandPlayer, HandResult, ShowdownDraft, Table
from tables.selectors import choice_games
from web.common.pages import PageInputError
from web.terminal.entry import MAX_BOARDS, CardField, NextHandChoice, Refusal, card_grid
from web.terminal.parts import (
    BetweenHands,
    HandInProgress,
    KillBanner,
    LastHand,
    PadKey,
    SeatBeforeDeal,
    SeatEntry,
    ShowdownEntry,
    TerminalScreen,
)
from web.terminal.presenters import (
    SeatNet,
    game_note,
    limits_text,
    names,
    reading_view,
)
from web.terminal.serializers import TerminalHandSerializer
from web.terminal.showdown_input import BOARD_FIELDS, entry_from_submitted, showdown_from_post, sweep_choices

# --- Reading the parts ------------------------------------------------------------------------------------


class SeatChips(Protocol):
    """A seated player's chips, as the fee preview and the table's chips both give them."""

    @property
    def seat(self) -> int | None: ...

    @property
    def player_name(self) -> str: ...

    @property
    def chips_cents(self) -> int: ...


def pad_amounts(table: Table, kill_pct: int = 100) -> tuple[PadKey, ...]:
    """The put-in pad's keys: at a limit table the small and big bet of the hand (a kill hand's,
    raised as the engine's ``kill_limits`` says: x1.5 at a half kill, x2 at a full kill, up to a
    whole chip, when ``kill_pct`` is 150 or 200), then whole chips of the table (1, 5, 25, 100 of
    them); each adds its amount to the put-in being entered."""
    chip = table.chip_unit_cents
    stakes = table.stakes
    small, big = stakes.small_bet_cents, stakes.big_bet_cents
    kind = KillKind.from_multiplier_pct(kill_pct) if kill_pct != 100 else None
    if small and big and kind is not None:
        small, big = kill_limits(small, big, kind, chip)
    kill = " (kill)" if kind is not None else ""
    bets = [(cents, what + kill) for cents, what in ((small, "small bet"), (big, "big bet")) if cents]
    chips = [(n * chip, "") for n in (1, 5, 25, 100) if n * chip not in dict(bets)]
    return tuple(PadKey(cents, format_cents(cents), what) for cents, what in bets + chips)


def seats_before_deal(
    table: Table,
    chips: Iterable[SeatChips],
    buttons: ButtonState | None,
    plan: DealPlan | None,
    choice: NextHandChoice,
) -> tuple[SeatBeforeDeal, ...]:
    """Every seat of the table for the next hand: who sits there, chips, the button (the next
    hand's, as the fees are taken from it), the fee, whether dealt in and why not."""
    by_seat = {row.seat: row for row in chips if row.seat is not None}
    dealt = {d.seat: d for d in plan.dealt} if plan is not None else {}
    left_out = {o.seat: o for o in plan.left_out} if plan is not None else {}
    button: int | None
    if plan is not None:
        button = plan.button
    else:
        button = buttons.button_seat.number if buttons is not None and buttons.button_seat else None
    kill = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    holder = kill_button_holder(table, buttons)
    sitting_round = (
        buttons.sitting_out_seat.number if buttons is not None and buttons.sitting_out_seat else None
    )
    rows = []
    for number in range(1, table.seat_count + 1):
        row = by_seat.get(number)
        out = left_out.get(number)
        rows.append(
            SeatBeforeDeal(
                seat=number,
                player_name=row.player_name if row else "",
                chips_cents=row.chips_cents if row else None,
                is_button=number == button,
                is_kill=number == kill,
                holds_kill_button=number == holder and number != kill,
                fee_cents=dealt[number].fee_cents if number in dealt else None,
                position=dealt[number].position if number in dealt else None,
                left_out=out.detail if out else "",
                rotates_out=bool(out and out.reason == "rotates_out")
                or (plan is None and number == sitting_round),
                sits_out=number in choice.sit_out,
            )
        )
    return tuple(rows)


#: The value of a seat's ``folded_<seat>`` when the screen, not the dealer, folded it: the seat
#: showed no cards once every other seat had all of its own (``static/terminal.js``).
MUCKED = "auto"


def showdown_order(players: Sequence[Mapping[str, Any]], *, pot: bool) -> list[Mapping[str, Any]]:
    """The seats of the entry in the order their cards are tapped (``players`` by position, the
    button first, as the serializer gives them). A pot game's: from the button's left round to the
    button, the order the cards were dealt and a showdown goes round the table, so a button that
    folded is the last seat and, showing no cards, is read as folded without a tap. The games whose
    players set hands keep the button first: it is the action button there and shows first."""
    ordered = list(players)
    buttons = [i for i, p in enumerate(ordered) if p.get("is_button")]
    if not pot or not buttons:
        return ordered
    cut = buttons[0] + 1
    return ordered[cut:] + ordered[:cut]


def showdown_entry(
    *,
    table: Table,
    hand: Mapping[str, Any],
    game: Game,
    values: Mapping[str, str],
    bad: set[str],
    kill_button: int | None = None,
    changed_since_reading: bool = False,
) -> ShowdownEntry:
    """The showdown panel: the board(s) and each seat's fields with what was entered, the put-in
    each seat starts from (what the flow knows: the kill seat's kill blind; nothing else is known
    before the dealer says it), the sweeps on record, the keys of the card grid, and the put-in
    pad's keys at the hand's limits (a kill hand's raised ones). ``kill_button``: the seat that
    holds the kill button (one pot won), marked."""
    rules = rules_for(game.slug)
    order = 0
    boards: list[CardField] = []

    def card_field(name: str, label: str, count: int, where: str) -> CardField:
        nonlocal order
        order += 1
        return CardField(name, label, count, values.get(name, ""), name in bad, order, where)

    if rules.has_board:
        boards.append(card_field("board", "Board", rules.board_cards, "the board"))
    elif rules.agrees_boards:
        for i in range(hand.get("boards") or 1):
            label = "Board" if i == 0 else f"Board {i + 1}"
            boards.append(card_field(BOARD_FIELDS[i], label, rules.board_cards, label.lower()))
    kill_seat, kill_blind = hand.get("kill_seat"), hand.get("kill_blind_cents")
    seats = []
    for p in showdown_order(hand["players"], pot=game.kind == GameKind.POT):
        seat = p["seat_number"]
        where = f"seat {seat}"
        declared = p.get("sweep_declared") or ""
        declare = values.get(f"declare_{seat}", declared)
        seat_fields: list[CardField] = []
        if not rules.rows:  # a pot game's hand: one field of its cards
            seat_fields.append(card_field(f"cards_{seat}", "Cards", rules.hand_cards, where))
        elif declare and rules.declares_sweeps:  # a declared sweep is shown whole
            count = rules.hand_cards
            seat_fields.append(card_field(f"cards_{seat}", f"{count} cards", count, where))
        else:
            for row in rules.rows:
                seat_fields.append(card_field(f"{row.name}_{seat}", row.name.title(), row.cards, where))
        base = min(kill_blind if seat == kill_seat and kill_blind else 0, p["chips_cents"])
        put_in = values.get(f"put_in_{seat}")
        seats.append(
            SeatEntry(
                seat=seat,
                player_name=p["player_name"],
                chips_cents=p["chips_cents"],
                is_button=p["is_button"],
                is_kill=seat == kill_seat,
                holds_kill_button=seat == kill_button and seat != kill_seat,
                base_cents=base,
                fields=tuple(seat_fields),
                put_in=put_in if put_in is not None else (amount_text(base) if base else ""),
                put_in_bad=f"put_in_{seat}" in bad,
                after_draw=values.get(f"after_draw_{seat}", ""),
                after_draw_bad=f"after_draw_{seat}" in bad,
                folded=bool(values.get(f"folded_{seat}")),
                folded_auto=values.get(f"folded_{seat}") == MUCKED,
                live=values.get(f"live_{seat}") == "1",
                checked_seven=bool(values.get(f"checked_seven_{seat}")),
                declare=declare,
                declare_bad=f"declare_{seat}" in bad,
                declared=declared,
                declared_at=p.get("sweep_declared_at"),
                surrender=bool(values.get(f"surrender_{seat}")),
                fouled=bool(values.get(f"fouled_{seat}")),
            )
        )
    return ShowdownEntry(
        is_pot=game.kind == GameKind.POT,
        boards=tuple(boards),
        seats=tuple(seats),
        called=values.get("called", ""),
        active=values.get("active", ""),
        pad_target=values.get("pad", ""),
        grid=card_grid(joker=bool(hand.get("joker"))),
        joker=bool(hand.get("joker")),
        lowball=rules.sevens,
        chinese=rules.declares_sweeps,
        pad=pad_amounts(table, hand.get("kill_multiplier_pct") or 100) if game.kind == GameKind.POT else (),
        chip_cents=table.chip_unit_cents,
        changed_since_reading=changed_since_reading,
    )


def hand_kill(table: Table, hand: Mapping[str, Any], kill_button: int | None = None) -> KillBanner | None:
    """The kill of the hand in progress (the terminal serializer's dict), or who holds the kill
    button (``kill_button``: one pot won), or None."""
    if not hand.get("kill_seat"):
        if kill_button is None:
            return None
        return KillBanner(seat=kill_button, is_kill_hand=False, blind_cents=None, pct=100, limits="", wins=1)
    pct = hand["kill_multiplier_pct"]
    return KillBanner(
        seat=hand["kill_seat"],
        is_kill_hand=True,
        blind_cents=hand.get("kill_blind_cents"),
        pct=pct,
        limits=limits_text(table, pct),
    )


def kill_button_holder(table: Table, buttons: ButtonState | None) -> int | None:
    """The seat that holds the kill button at a table that plays a kill: the kill seat, else the
    seat that won the last pot outright (one more outright win and the next hand is a kill hand,
    RULINGS §2); None at a table without a kill or with no streak."""
    if buttons is None or table.stakes.kill == KillType.NONE:
        return None
    if buttons.kill_seat_id is not None and buttons.kill_seat is not None:
        return buttons.kill_seat.number
    if buttons.streak_wins and buttons.streak_seat is not None:
        return buttons.streak_seat.number
    return None


def next_kill(table: Table, buttons: ButtonState | None, plan: DealPlan | None) -> KillBanner | None:
    """Who holds the kill button, and whether the next hand is a kill hand (its blind, the raised
    limits): the plan says so when the kill seat is dealt in. After one pot won outright the
    winner holds the kill button (``wins``: 1), the next hand not yet a kill hand."""
    holder = buttons.kill_seat.number if buttons is not None and buttons.kill_seat else None
    if holder is None:
        single = kill_button_holder(table, buttons)
        if single is None or buttons is None:
            return None
        return KillBanner(
            seat=single, is_kill_hand=False, blind_cents=None, pct=100, limits="", wins=buttons.streak_wins
        )
    is_kill = plan is not None and plan.kill_seat is not None
    pct = plan.kill_multiplier_pct if plan is not None and is_kill else 100
    return KillBanner(
        seat=holder,
        is_kill_hand=is_kill,
        blind_cents=plan.kill_blind_cents if plan is not None and is_kill else None,
        pct=pct,
        limits=limits_text(table, pct) if is_kill else "",
    )


def last_hand(view: HandView) -> LastHand | None:
    """The hand just finished, as the screen sums it up: each seat's chips change, or the misdeal
    (and whether its fees went back)."""
    hand = view.hand
    if view.status not in (HandStatus.SETTLED, HandStatus.VOID):
        return None
    return LastHand(
        number=hand.number,
        status=hand.status,
        void_reason=hand.void_reason,
        fees_returned=view.fees_returned,
        net=tuple(SeatNet(seat=seat, cents=cents) for seat, cents in view.seat_nets if cents)
        if view.status == HandStatus.SETTLED
        else (),
        game=hand.game.name,
    )


def _latest_hand(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table).select_related("game").order_by("-number").first()


def _entry_on_record(hand: Hand, seats: Sequence[int]) -> tuple[dict[str, str], bool]:
    """The entry to draw when none was posted (a reload, another tablet): the draft kept for the
    hand (:class:`tables.models.ShowdownDraft`, what was entered last), else the entry of the
    reading on record, as the form's fields; none before the showdown and without a draft
    (``HandStatus.before_showdown``). And whether the draft differs from the reading on record
    (its showdown isn't the one read): the reading can't be confirmed until it is read again."""
    draft = ShowdownDraft.objects.filter(hand=hand).values_list("entry", flat=True).first()
    submitted = (
        HandResult.objects.filter(hand=hand).values_list("submitted", flat=True).first()
        if hand.status not in HandStatus.before_showdown()
        else None
    )
    if not isinstance(submitted, Mapping):
        submitted = None
    if isinstance(draft, Mapping) and draft:
        values = {str(k): str(v) for k, v in draft.items()}
        return values, submitted is not None and _showdown_of(hand, seats, values) != submitted
    if submitted is None:
        return {}, False
    return entry_from_submitted(rules=rules_for(hand.game.slug), submitted=submitted), False


def _showdown_of(hand: Hand, seats: Sequence[int], values: Mapping[str, str]) -> dict[str, Any] | None:
    """The showdown a draft would post (as the showdown view reads the form), or None when it
    can't be read."""
    rules = rules_for(hand.game.slug)
    try:
        return showdown_from_post(
            rules=rules, seats=seats, data=values, boards=hand.boards if rules.agrees_boards else None
        )
    except PageInputError:
        return None


#: The longest player name the reading's sentences carry (the seats cut theirs on screen with an
#: ellipsis; the full name is on the seat's title and in the hand history).
READING_NAME_CHARS = 18


def short_name(name: str, most: int = READING_NAME_CHARS) -> str:
    """``name`` cut to ``most`` characters, the last an ellipsis, when it is longer."""
    return name if len(name) <= most else name[: most - 1].rstrip() + "\u2026"


def _reading_names(view: HandView) -> dict[int, str]:
    """Each dealt seat's player name as the reading says it (cut)."""
    return {seat: short_name(name) for seat, name in names(view).items()}


def _kill_button_in_hand(table: Table, hand: Mapping[str, Any]) -> int | None:
    """During a hand that isn't a kill hand, at a table that plays a kill: the seat that holds the
    kill button (it won the last pot outright; winning this one makes the next a kill hand). One
    read, only at such a table."""
    if table.stakes.kill == KillType.NONE or hand.get("kill_seat"):
        return None
    row = ButtonState.objects.filter(table=table).values_list("streak_seat__number", "streak_wins").first()
    if row is None or not row[1] or row[0] is None:
        return None
    seat: int = row[0]
    return seat


# --- The whole screen -------------------------------------------------------------------------------------


def terminal_screen(
    *,
    table: Table,
    user: User | AnonymousUser,
    choice: NextHandChoice | None = None,
    entry: Mapping[str, str] | None = None,
    refusal: Refusal | None = None,
    notices: Iterable[tuple[str, str]] = (),
    hand: Hand | None = None,
    reading: HandResult | None = None,
    players: Sequence[HandPlayer] | None = None,
    chips: Mapping[int, int] | None = None,
) -> TerminalScreen:
    """Everything the screen shows to ``user``: the table, who is clocked in, the seats with their
    chips, the button (one place: the hand's, or the next hand's as its fees are taken from it),
    the kill, and either the next hand (game, boards, sit-outs, fees, the deal; the hand just
    finished) or the hand in progress (the showdown entry, as ``entry`` when given, else as the
    reading on record left it; the reading).

    ``hand`` (and its ``reading``): the hand a service just wrote and returned, with its ``players``
    and their ``chips`` as the service returned them, so they aren't read again; otherwise the table's
    latest hand is read. Between hands the seats come from the fee preview, which reads every
    seated player's chips anyway."""
    choice = choice or NextHandChoice()
    can_run = user.has_perm("tables.run_hand")
    runs_any = floor.may_run_any_table(user)
    current = hand if hand is not None else _latest_hand(table)
    in_progress = current is not None and current.status in HandStatus.in_progress()
    # Nobody clocks in or out during a hand (the services refuse it): the hand's dealer is on duty.
    down = None if in_progress else floor.dealer_on_duty(table)
    on_duty_is_me = down is not None and down.dealer_id == user.pk
    notes = list(notices)
    if choice.problem:
        notes.append(("error", choice.problem))
    can_manage = user.has_perm("tables.manage_floor")
    dealers = None
    if runs_any and not in_progress:
        dealers = tuple(
            get_user_model()
            .objects.filter(is_active=True)
            .filter(Q(groups__permissions__codename="run_hand") | Q(user_permissions__codename="run_hand"))
            .distinct()
            .order_by("username")
        )
    # The game on screen: the hand's during a hand (at dealer's choice, the one picked), else the
    # table's; its rule set says which clean sweeps may be declared.
    shown = rules_for(current.game.slug if in_progress and current is not None else table.game.slug)
    part: HandInProgress | BetweenHands
    if in_progress and current is not None:
        part = _hand_in_progress(
            table,
            user,
            current,
            hand=hand,
            entry=entry,
            refusal=refusal,
            reading=reading,
            players=players,
            chips=chips,
        )
    else:
        part = _between_hands(table, current, choice=choice, reading=reading)
    return TerminalScreen(
        table=table,
        down=down,
        on_duty_is_me=on_duty_is_me,
        can_run=can_run,
        runs_any=runs_any,
        may_deal=can_run and (runs_any or on_duty_is_me),
        can_manage=can_manage,
        refusal=refusal,
        misdeal_reasons=(
            tuple((str(r), str(r.label)) for r in misdeal_reasons_for(current.game.slug))
            if in_progress and current is not None
            else ()
        ),
        sweeps=sweep_choices(shown),
        is_chinese=shown.engine is EngineKind.CHINESE,
        notices=tuple(notes),
        dealers=dealers,
        part=part,
    )


def _hand_in_progress(
    table: Table,
    user: User | AnonymousUser,
    current: Hand,
    *,
    hand: Hand | None,
    entry: Mapping[str, str] | None,
    refusal: Refusal | None,
    reading: HandResult | None,
    players: Sequence[HandPlayer] | None,
    chips: Mapping[int, int] | None,
) -> HandInProgress:
    fresh = hand is not None and players is not None and chips is not None
    if current.dealer_id is not None and current.dealer_id == user.pk:
        current.dealer = user  # the hand's dealer is most often the one tapping: not read again
    typed = hand_view(current, fresh=fresh, result=reading, players=players, chips=chips)
    view = TerminalHandSerializer.from_view(typed)
    game = current.game
    changed = False
    if entry is not None:
        values = dict(entry)
    elif hand is not None and current.status in HandStatus.before_showdown():
        values = {}  # the hand the deal just made: no draft yet, no reading
    else:
        values, changed = _entry_on_record(current, [p["seat_number"] for p in view["players"]])
    kill_button = _kill_button_in_hand(table, view)
    return HandInProgress(
        hand=view,
        game=game,
        entry=showdown_entry(
            table=table,
            hand=view,
            game=game,
            values=values,
            bad=refusal.bad if refusal else set(),
            kill_button=kill_button,
            changed_since_reading=changed,
        ),
        reading=reading_view(typed, _reading_names(typed), game),
        kill=hand_kill(table, view, kill_button),
        point_cents=table.stakes.point_cents if game.kind == GameKind.PLAYER_DEALER else None,
    )


def _between_hands(
    table: Table, current: Hand | None, *, choice: NextHandChoice, reading: HandResult | None
) -> BetweenHands:
    plan: DealPlan | None = None
    plan_error = ""
    picker: int | None = None
    # The games the button picks from: the floor decides the set in one place (a choice game's own
    # list, Seven Card Stud Choice's three; at dealer's choice every approved pot game).
    games = tuple(choice_games(table.game))
    # The plan the seats are drawn from: the deal's, or at dealer's choice before the pick, the
    # plan of any of its games: they are all pot games, which deal every seat that can pay from
    # the same button at the same fees, so the seat that picks (the next hand's button) is known.
    seats_plan: DealPlan | None = None
    if table.is_open:
        before_pick = table.game.is_dealers_choice and choice.game is None and bool(games)
        try:
            seats_plan = hand_flow.preview_fees(
                table=table,
                game=games[0] if before_pick else choice.game,
                sit_out_seat_numbers=choice.sit_out,
                hand_in_progress=False,
            )
        except DomainError as exc:
            plan_error = exc.message
        else:
            if before_pick:
                picker = seats_plan.button
            else:
                plan = seats_plan
    else:
        plan_error = f"Table {table.number} is closed."
    # The plan knows the button, the kill hand and who sits out the round; the buttons' row is read
    # for what it doesn't know: a kill button held by a seat not dealt in (or after one win), or no
    # plan at all.
    buttons = (
        ButtonState.objects.select_related("button_seat", "kill_seat", "sitting_out_seat", "streak_seat")
        .filter(table=table)
        .first()
        if seats_plan is None or table.stakes.kill != KillType.NONE
        else None
    )
    # Every seated player is in the plan, dealt in or left out (with their chips); without a plan
    # (too few players, the table closed) the chips are read on their own.
    chips: Iterable[SeatChips] = (
        (*seats_plan.dealt, *seats_plan.left_out)
        if seats_plan is not None
        else hand_flow.table_chips(table=table)
    )
    return BetweenHands(
        plan=plan,
        plan_error=plan_error,
        picker=picker,
        choice=choice,
        seats=seats_before_deal(table, chips, buttons, seats_plan, choice),
        games=games,
        game_note=game_note(table, choice.game),
        taiwanese=rules_for(table.game.slug).agrees_boards,
        board_choices=range(1, MAX_BOARDS + 1),
        kill=next_kill(table, buttons, seats_plan),
        last=(
            last_hand(hand_view(current, fresh=True, result=reading, seats=False))
            if current is not None and current.status in (HandStatus.SETTLED, HandStatus.VOID)
            else None
        ),
    )

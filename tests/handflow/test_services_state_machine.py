"""Random sequences of seat / buy-in / rebuy / start hand / settle (random valid showdowns) /
misdeal / cash-out / table change (to a neighbouring table of the same game and back) against an
in-memory model of the tables (hypothesis RuleBasedStateMachine).

The model applies each step's rules on its own: who is dealt in, the button and each fee
(schedule A at no limit $20-$100: the button pays $1, $2 or $3 by players dealt in; Chinese poker
option 2: the button $2, the others $1; a player dealt in keeps one chip, or 9 points, in play),
the buy-in rules, the chips locked during a hand, a misdeal's refund. Showdowns are random deals
with random put-ins and folds (hold'em) or random settings, legal or fouled (Chinese poker);
the model reads them with the engine itself from its own stacks. A table change takes every
chip along and starts a new session. After every step each player's chips at both tables equal
the model's and all the ledger's accounts sum to zero.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from django.db.models import Sum
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import Account
from ledger.verification import verify_ledger
from poker.showdown import decide
from tables import errors, services
from tables.buttons import choose_dealt
from tables.choices import HandStatus
from tables.games import misdeal_reasons_for
from tables.models import Hand, Player, Seating, Table

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]
RANK = {r: i for i, r in enumerate("23456789TJQKA")}


class TableModel:
    """The game's rules as the model applies them (independently of handflow.services)."""

    game: str
    seats: int
    max_hands: int | None
    minimum: int
    maximum: int | None
    to_play: int
    # One short rebuy per session, of half the minimum (points tables, 004 rule 1); a no-limit
    # table's posted range holds for rebuys too (RULINGS §6).
    short_rebuy: bool

    def fees(self, dealt: int) -> list[int]:
        raise NotImplementedError


class HoldemModel(TableModel):
    game, seats, max_hands = "holdem", 10, None
    minimum, maximum, to_play, short_rebuy = 2_000, 10_000, 100, False

    def fees(self, dealt: int) -> list[int]:
        button = 100 if dealt <= 4 else 200 if dealt <= 6 else 300
        return [button] + [0] * (dealt - 1)


class ChineseModel(TableModel):
    game, seats, max_hands = "chinese-poker", 5, 4
    minimum, maximum, to_play, short_rebuy = 10_000, None, 4_500, True

    def fees(self, dealt: int) -> list[int]:
        return [200] + [100] * (dealt - 1)


class HandFlowMachine(RuleBasedStateMachine):
    model_class: ClassVar[type[TableModel]] = HoldemModel
    factories: ClassVar[dict[str, Callable[..., Any]]] = {}

    def __init__(self) -> None:
        super().__init__()
        self.rules = self.model_class()
        config = (
            {"game": "holdem", "stakes": "nl-20-100", "schedule": "A"}
            if self.rules.game == "holdem"
            else {"game": "chinese-poker", "stakes": "points-5", "schedule": "CP2"}
        )
        self.table = self.factories["table"](**config)
        self.other = self.factories["table"](**config)  # the neighbouring table of table changes
        self.players = [self.factories["player"](f"sm{self.table.number}-{i}") for i in range(5)]
        self.chips = [0] * len(self.players)
        self.house = 0
        self.cage = 0
        self.seat_of: dict[int, int] = {}  # player index -> seat
        self.away: list[int] = [0] * len(self.players)  # chips at the other table
        self.away_seat: dict[int, int] = {}  # player index -> seat at the other table
        self.session: dict[int, dict[str, bool]] = {}  # player index -> {"bought": .., "short": ..}
        self.button: int | None = None
        self.hand: Hand | None = None
        self.hand_fees: list[tuple[int, int]] = []  # (player index, fee)
        self.previous_button: int | None = None
        self.settled: list[Hand] = []
        self.keys = (f"sm-{self.table.pk}-{n}" for n in itertools.count())

    # --- helpers --------------------------------------------------------------------------------

    def refused(self, call: Callable[[], Any], *kinds: type[Exception]) -> None:
        def state() -> tuple[Any, ...]:
            return tuple(
                (
                    ledger_selectors.table_chips(table=table),
                    Hand.objects.filter(table=table).count(),
                    sorted(
                        Seating.objects.active().filter(table=table).values_list("player_id", "seat__number")
                    ),
                )
                for table in (self.table, self.other)
            )

        before = state()
        with pytest.raises(kinds):
            call()
        assert state() == before

    def in_hand(self, index: int) -> bool:
        return self.hand is not None and any(i == index for i, _ in self.hand_fees)

    def index_at(self, seat: int) -> int:
        return next(i for i, s in self.seat_of.items() if s == seat)

    # --- rules -------------------------------------------------------------------------------------

    @initialize(
        count=st.integers(2, 4), points=st.lists(st.sampled_from([20, 25, 40]), min_size=4, max_size=4)
    )
    def open_the_game(self, count: int, points: list[int]) -> None:
        """A few players sit down and buy in before the random steps start."""
        for index in range(count):
            self.seat(index, index + 1)
            self.buy_in(index, points[index])

    @rule(index=st.integers(0, 4), seat=st.integers(1, 6))
    def seat(self, index: int, seat: int) -> None:
        player = self.players[index]
        if seat > self.rules.seats:
            self.refused(
                lambda: services.seat_player(table=self.table, seat_number=seat, player=player, by=None),
                errors.SeatNotFound,
            )
        elif index in self.seat_of:
            self.refused(
                lambda: services.seat_player(table=self.table, seat_number=seat, player=player, by=None),
                errors.PlayerAlreadySeated,
                errors.SeatTaken,
            )
        elif seat in self.seat_of.values():
            self.refused(
                lambda: services.seat_player(table=self.table, seat_number=seat, player=player, by=None),
                errors.SeatTaken,
            )
        elif index in self.away_seat:  # one table at a time: the player sits at the other table
            self.refused(
                lambda: services.seat_player(table=self.table, seat_number=seat, player=player, by=None),
                errors.SeatedElsewhere,
            )
        else:
            services.seat_player(table=self.table, seat_number=seat, player=player, by=None)
            self.seat_of[index] = seat
            self.session[index] = {"bought": False, "short": False}

    @rule(
        op=st.sampled_from(["buy_in", "rebuy", "cash_out"]),
        index=st.integers(0, 4),
        points=st.sampled_from([5, 10, 15, 20, 25, 40, 60]),
    )
    def chips_on_or_off(self, op: str, index: int, points: int) -> None:
        """A buy-in, a rebuy (``points`` of the minimum's 20) or a cash-out, valid or not."""
        if op == "cash_out":
            self.cash_out(index)
        else:
            getattr(self, op)(index, points)

    def buy_in(self, index: int, points: int) -> None:
        amount = points * self.rules.minimum // 20
        call = lambda: hand_flow.buy_in(  # noqa: E731
            table=self.table,
            player=self.players[index],
            amount_cents=amount,
            by=None,
            idempotency_key=next(self.keys),
        )
        if index not in self.seat_of:
            self.refused(call, errors.NotSeated)
        elif self.in_hand(index):
            self.refused(call, errors.ChipsLocked)
        elif self.session[index]["bought"]:
            self.refused(call, errors.AlreadyBoughtIn)
        elif amount < self.rules.minimum or (
            self.rules.maximum is not None and self.chips[index] + amount > self.rules.maximum
        ):
            self.refused(call, errors.BuyInRefused)
        else:
            movement = call().movement
            assert (movement.kind, movement.amount_cents) == ("buy_in", amount)
            self.chips[index] += amount
            self.cage -= amount
            self.session[index]["bought"] = True

    def rebuy(self, index: int, points: int) -> None:
        amount = points * self.rules.minimum // 20
        short = amount < self.rules.minimum
        call = lambda: hand_flow.rebuy(  # noqa: E731
            table=self.table,
            player=self.players[index],
            amount_cents=amount,
            by=None,
            idempotency_key=next(self.keys),
        )
        if index not in self.seat_of:
            self.refused(call, errors.NotSeated)
        elif self.in_hand(index):
            self.refused(call, errors.ChipsLocked)
        elif not self.session[index]["bought"]:
            self.refused(call, errors.NoBuyIn)
        elif amount < (self.rules.minimum // 2 if self.rules.short_rebuy else self.rules.minimum) or (
            self.rules.maximum is not None and self.chips[index] + amount > self.rules.maximum
        ):
            self.refused(call, errors.BuyInRefused)
        elif short and self.session[index]["short"]:
            self.refused(call, errors.ShortRebuyUsed)
        else:
            movement = call().movement
            assert movement.is_short is short
            self.chips[index] += amount
            self.cage -= amount
            self.session[index]["short"] |= short

    def cash_out(self, index: int) -> None:
        call = lambda: hand_flow.cash_out(  # noqa: E731
            table=self.table, player=self.players[index], by=None, idempotency_key=next(self.keys)
        )
        if self.in_hand(index):
            self.refused(call, errors.ChipsLocked)
        elif self.chips[index] == 0:
            self.refused(call, errors.NoChips)
        else:
            assert call().movement.amount_cents == self.chips[index]
            self.cage += self.chips[index]
            self.chips[index] = 0
            if self.seat_of.pop(index, None) is not None:
                self.session.pop(index)
            assert not Seating.objects.active().filter(table=self.table, player=self.players[index]).exists()

    @rule(index=st.integers(0, 4), seat=st.integers(1, 5))
    def change_table(self, index: int, seat: int) -> None:
        """The floor moves a player seated here to the other table's ``seat``, chips and all."""
        if index not in self.seat_of:
            return  # no seating to move
        seating = Seating.objects.active().get(table=self.table, player=self.players[index])
        call = lambda: hand_flow.move_player(  # noqa: E731
            seating=seating, to_table=self.other, to_seat_number=seat, by=None
        )
        if self.in_hand(index):
            self.refused(call, errors.PlayerInHand)
        elif seat in self.away_seat.values():
            self.refused(call, errors.SeatTaken, errors.PlayerAlreadySeated)
        elif index in self.away_seat:
            self.refused(call, errors.PlayerAlreadySeated)
        else:
            moved = call()
            assert (moved.table, moved.seat.number) == (self.other, seat)
            self.away[index] += self.chips[index]
            self.chips[index] = 0
            self.seat_of.pop(index)
            self.session.pop(index)
            self.away_seat[index] = seat

    @rule(index=st.integers(0, 4), seat=st.integers(1, 6))
    def come_back(self, index: int, seat: int) -> None:
        """The floor moves a player from the other table back here, to ``seat``: a new session."""
        if index not in self.away_seat:
            return
        seating = Seating.objects.active().get(table=self.other, player=self.players[index])
        call = lambda: hand_flow.move_player(  # noqa: E731
            seating=seating, to_table=self.table, to_seat_number=seat, by=None
        )
        if seat > self.rules.seats:
            self.refused(call, errors.SeatNotFound)
        elif seat in self.seat_of.values():
            self.refused(call, errors.SeatTaken)
        elif index in self.seat_of:
            self.refused(call, errors.PlayerAlreadySeated)
        else:
            call()  # (a hand in progress here goes on: the newcomer is dealt in from the next one)
            self.chips[index] += self.away[index]
            self.away[index] = 0
            self.away_seat.pop(index)
            self.seat_of[index] = seat
            self.session[index] = {"bought": False, "short": False}

    def expected_deal(self, sit_out: set[int]) -> tuple[int, list[int], list[int]] | None:
        """(button seat, seats dealt in, fees) as the model decides them; None: not enough players.

        Who can pay is the pure fixed point of tables.buttons.choose_dealt (checked against a
        brute-force reading in tests/tables/test_buttons.py), fed with the model's own chips."""
        eligible = {s for s in self.seat_of.values() if s not in sit_out}
        choice = choose_dealt(
            eligible=eligible,
            previous_button=self.button,
            chips={s: self.chips[self.index_at(s)] for s in eligible},
            fees_for=self.rules.fees,
            keep_in_play=self.rules.to_play,
            max_hands=self.rules.max_hands,
        )
        if not choice.dealt or choice.button is None:
            return None
        return choice.button, list(choice.dealt), list(choice.fees)

    @precondition(lambda self: self.hand is None)
    @rule(sit_out=st.one_of(st.just(set()), st.sets(st.integers(1, 6), max_size=1)))
    def start_hand(self, sit_out: set[int]) -> None:
        sit_out &= set(self.seat_of.values())
        expected = self.expected_deal(sit_out)
        call = lambda: hand_flow.start_hand(table=self.table, by=None, sit_out_seat_numbers=sit_out)  # noqa: E731
        if expected is None:
            self.refused(call, errors.NotEnoughPlayers)
            return
        dealt_hand = call()
        hand = dealt_hand.hand
        button, dealt, fees = expected
        players = list(hand.players.select_related("seat").order_by("position"))
        assert (hand.status, hand.button_seat.number) == (HandStatus.DEALT, button)
        assert [(hp.seat.number, hp.fee_cents) for hp in players] == list(zip(dealt, fees, strict=True))
        self.hand, self.previous_button, self.button = hand, self.button, button
        self.hand_fees = [(self.index_at(seat), fee) for seat, fee in zip(dealt, fees, strict=True)]
        for index, fee in self.hand_fees:
            self.chips[index] -= fee
            self.house += fee
        # The deal answers with its players and their chips after the fee, as the ledger has them.
        assert [hp.seat.number for hp in dealt_hand.players] == dealt
        assert dealt_hand.chips_after == {
            self.players[index].pk: self.chips[index] for index, _ in self.hand_fees
        }

    def random_showdown(self, seed: int) -> dict[str, Any]:
        """A random deal of the players dealt in (a seeded shuffle: hypothesis draws the seed)."""
        rng = random.Random(seed)
        deck = rng.sample(DECK, len(DECK))
        dealt = [(self.seat_of[index], index) for index, _ in self.hand_fees]
        if self.rules.game == "holdem":
            live = [rng.random() < 0.7 for _ in dealt]
            live[rng.randrange(len(dealt))] = True
            # In whole $1 chips (the table's), or all in.
            put = [
                rng.choice([0, self.chips[index], rng.randint(0, self.chips[index]) // 100 * 100])
                for _, index in dealt
            ]
            top = max(p for p, alive in zip(put, live, strict=True) if alive)
            return {
                "board": deck[:5],
                "players": [
                    {
                        "seat": seat,
                        "cards": deck[5 + 2 * k : 7 + 2 * k],
                        "put_in": p if alive else min(p, top),
                    }
                    | ({} if alive else {"folded": True})
                    for k, ((seat, _), p, alive) in enumerate(zip(dealt, put, live, strict=True))
                ],
            }
        players = []
        for k, (seat, _) in enumerate(dealt):
            cards = deck[13 * k : 13 * k + 13]
            if rng.random() < 0.6:  # strongest cards at the back: usually a legal setting
                cards = sorted(cards, key=lambda c: RANK[c[0]], reverse=True)
            players.append({"seat": seat, "back": cards[:5], "middle": cards[5:10], "front": cards[10:]})
        return {"players": players}

    @precondition(lambda self: self.hand is not None)
    @rule(
        how=st.sampled_from(["settle", "settle", "settle", "misdeal", "misdeal twice"]),
        seed=st.integers(0, 2**32),
    )
    def end_hand(self, how: str, seed: int) -> None:
        """Settle the hand in progress with a random showdown (most often), or call a misdeal."""
        if how == "settle":
            self.settle(seed)
        else:
            self.misdeal(retry=how == "misdeal twice")

    def settle(self, seed: int) -> None:
        assert self.hand is not None
        entry = self.random_showdown(seed)
        if self.rules.game == "holdem" and sum(1 for p in entry["players"] if p["put_in"]) == 1:
            # One player alone put chips in: they would all go back to it and the pot pay nobody.
            # The entry is refused (issue #32), nothing changes, and the hand is still to settle.
            hand = self.hand
            self.refused(
                lambda: hand_flow.submit_showdown(hand=hand, submitted=entry, by=None), errors.InvalidShowdown
            )
            return
        reading = hand_flow.submit_showdown(hand=self.hand, submitted=entry, by=None).reading
        # The model reads the same showdown with the engine, from its own stacks and button.
        engine_input: dict[str, Any] = {"game": self.rules.game, "button": self.button}
        if self.rules.game == "holdem":
            engine_input |= {"chip": 100, "board": entry["board"], "players": entry["players"]}
            net = {int(seat): cents for seat, cents in decide(engine_input)["net"].items()}
        else:
            engine_input |= {
                "rules": "house",
                "point": 500,
                "players": [p | {"stack": self.chips[self.index_at(p["seat"])]} for p in entry["players"]],
            }
            net = {int(seat): p["net"] for seat, p in decide(engine_input)["players"].items()}
        assert reading.postings["net"] == {str(seat): cents for seat, cents in sorted(net.items())}
        settled = hand_flow.confirm_settlement(hand=self.hand, by=None, revision=reading.revision)
        for seat, cents in net.items():
            self.chips[self.index_at(seat)] += cents
        # The confirmation answers with its players and their chips after the settlement.
        assert not settled.replayed
        assert settled.players is not None
        assert settled.chips_after == {
            hp.player_id: self.chips[self.index_at(hp.seat.number)] for hp in settled.players
        }
        self.settled.append(self.hand)
        self.hand, self.hand_fees = None, []

    def misdeal(self, *, retry: bool) -> None:
        assert self.hand is not None
        # A misdeal of this game (the first of its reasons: tables.games).
        code = misdeal_reasons_for(self.hand.game.slug)[0]
        hand_flow.misdeal(hand=self.hand, reason_code=code, by=None)
        if retry:
            again = hand_flow.misdeal(hand=self.hand, reason_code="other", reason="again", by=None)
            assert again.replayed
        for index, fee in self.hand_fees:
            self.chips[index] += fee
            self.house -= fee
        self.button = self.previous_button  # a misdeal is redealt with the same button
        self.hand, self.hand_fees = None, []

    @precondition(lambda self: bool(self.settled))
    @rule()
    def confirm_again(self) -> None:
        assert hand_flow.confirm_settlement(hand=self.settled[-1], by=None).replayed

    # --- invariants ---------------------------------------------------------------------------------

    @invariant()
    def chips_match_the_model(self) -> None:
        assert [ledger_selectors.player_chips(table=self.table, player=p) for p in self.players] == self.chips
        assert [ledger_selectors.player_chips(table=self.other, player=p) for p in self.players] == self.away
        assert ledger_selectors.cage_position(table=self.table) == self.cage
        assert sum(self.chips) + sum(self.away) + self.house + self.cage == 0

    @invariant()
    def the_whole_ledger_sums_to_zero(self) -> None:
        assert (Account.objects.aggregate(total=Sum("balance"))["total"] or 0) == 0


def run(
    model: type[TableModel], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    HandFlowMachine.model_class = model
    HandFlowMachine.factories = {"table": make_table, "player": make_player}
    run_state_machine_as_test(
        HandFlowMachine,
        settings=settings(
            max_examples=12,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        ),
    )
    report = verify_ledger()
    assert report.ok, report.problems


@pytest.mark.django_db
def test_random_holdem_sessions_match_the_model(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    run(HoldemModel, make_table, make_player)


@pytest.mark.django_db
def test_random_chinese_poker_sessions_match_the_model(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    run(ChineseModel, make_table, make_player)

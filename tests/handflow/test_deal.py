"""The deal (:mod:`handflow.deal`): who is dealt in and what they pay, the schedule in force at the
hand's start, the joker of lowball, the kill blind."""

from __future__ import annotations

import datetime
import time
from types import SimpleNamespace

import pytest
from django.utils import timezone

from handflow import deal
from handflow import services as hand_flow
from ledger.models import JournalTransaction
from poker.games import GAME_RULES
from tables import errors, services
from tables.choices import HandStatus, KillType
from tables.models import (
    CollectionSchedule,
    Game,
    Hand,
    HandResult,
    Stakes,
    Table,
)
from tables.selectors import rate_for_hand
from tests.handflow.helpers import MakeTable, SeatPlayers, buy, chips, give, heads_up


class TestDealingIn:
    def test_the_button_skips_a_player_who_cannot_pay(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        # $4-$8, schedule A: the button pays $1 and needs $1 more in play; others need $1.
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        ana, ben, cat = seat_players(table, [1, 2, 3])
        give(table, ana, 100)  # would be the first button, but can't pay and keep a chip
        give(table, ben, 10_000)
        give(table, cat, 10_000)
        preview = hand_flow.preview_fees(table=table)
        assert preview.button == 2
        assert [(d.seat, d.fee_cents) for d in preview.dealt] == [(2, 100), (3, 0)]
        assert [(o.seat, o.reason) for o in preview.left_out] == [(1, "cannot_pay")]
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert (hand.button_seat.number, [hp.seat.number for hp in hand.players.all()]) == (2, [2, 3])
        assert chips(table, ana, ben, cat) == [100, 9_900, 10_000]
        hand_flow.submit_showdown(
            hand=hand,
            submitted={
                "board": heads_up()["board"],
                "players": [
                    {"seat": 2, "cards": ["9c", "8c"], "put_in": 400},
                    {"seat": 3, "cards": ["Qc", "Jd"], "put_in": 400},
                ],
            },
            by=None,
        )
        hand_flow.confirm_settlement(hand=hand, by=None)
        # Ana could play a hand without the button ($1 in play), but the button comes to her next:
        # she is left out again and the button moves on to seat 3.
        assert hand_flow.preview_fees(table=table).button == 3
        give(table, ana, 100)
        nxt = hand_flow.start_hand(table=table, by=None).hand
        assert (nxt.button_seat.number, [hp.seat.number for hp in nxt.players.all()]) == (3, [3, 1, 2])

    def test_the_fee_band_follows_the_players_dealt_in(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        # Schedule A, $4-$8: $1 for 1-4 players, $2 for 5-6. Five seated, one can't play: $1.
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        players = seat_players(table, [1, 2, 3, 4, 5])
        for player in players[:4]:
            give(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert (len(plan.dealt), plan.total_fees_cents) == (4, 100)
        give(table, players[4], 10_000)
        assert hand_flow.preview_fees(table=table).total_fees_cents == 200

    def test_who_can_pay_is_decided_at_the_band_they_are_dealt_at(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        """Five seated on schedule A ($4-$8: $1 for 1-4 players, $2 for 5-6; the button pays).
        Seat 5 has $0 and seat 1, the next button, has $2: at five players both are short, but
        once seat 5 is out four are dealt at $1, which seat 1 can pay and keep a chip. (Leaving
        both out dealt three, and a player who could pay lost the hand.)"""
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        players = seat_players(table, [1, 2, 3, 4, 5])
        give(table, players[0], 200)
        for player in players[1:4]:
            give(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert [(d.seat, d.fee_cents) for d in plan.dealt] == [(1, 100), (2, 0), (3, 0), (4, 0)]
        assert [(o.seat, o.reason) for o in plan.left_out] == [(5, "cannot_pay")]
        hand = hand_flow.start_hand(table=table, by=None, expected_fees=hand_flow.fees_as_shown(plan)).hand
        assert [hp.seat.number for hp in hand.players.order_by("position")] == [1, 2, 3, 4]
        assert chips(table, *players) == [100, 10_000, 10_000, 10_000, 0]

    def test_the_fee_taken_is_the_fee_the_dealer_confirmed(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        """The start page showed $1 each; a version taking effect before the tap made it $2 for
        the button: nothing is taken, the dealer is told the new fees and confirms again."""
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        players = seat_players(table, [1, 2, 3])
        for player in players:
            buy(table, player, 10_000)
        shown = hand_flow.fees_as_shown(hand_flow.preview_fees(table=table))
        assert shown == {1: 100, 2: 100, 3: 100}
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP1"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 200, "others_fee_cents": 100}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="option 2",
        )  # fmt: skip
        time.sleep(1.1)
        with pytest.raises(errors.FeesChanged, match=r"now seat 1 \$2, seat 2 \$1, seat 3 \$1") as caught:
            hand_flow.start_hand(table=table, by=None, expected_fees=shown)
        assert (caught.value.code, caught.value.field) == ("fees_changed", "expected_fees")
        assert not Hand.objects.filter(table=table).exists()
        assert chips(table, *players) == [10_000] * 3
        shown = hand_flow.fees_as_shown(hand_flow.preview_fees(table=table))
        hand = hand_flow.start_hand(table=table, by=None, expected_fees=shown).hand
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == [200, 100, 100]
        assert chips(table, *players) == [9_800, 9_900, 9_900]

    def test_a_band_that_charges_nothing_is_recorded_with_the_hand(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        services.create_schedule(
            code="FREE",
            name="Promotion: no fee",
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "each_player", "fee_cents": 0}],
            by=None,
        )  # fmt: skip
        table = make_table(game="chinese-poker", stakes="points-5", schedule="FREE")
        for player in seat_players(table, [1, 2]):
            buy(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None, expected_fees={1: 0, 2: 0}).hand
        hand.refresh_from_db()
        assert hand.status == HandStatus.DEALT
        assert "schedule FREE version 1: no fee due" in hand.no_fee_reason
        assert not JournalTransaction.objects.filter(hand=hand, kind="fee").exists()

    def test_not_enough_players_says_why(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        ana, _ben = seat_players(table, [1, 2])
        give(table, ana, 10_000)
        with pytest.raises(errors.NotEnoughPlayers, match="seat 2: has \\$0; needs \\$1"):
            hand_flow.start_hand(table=table, by=None)
        assert not Hand.objects.filter(table=table).exists()

    def test_chinese_poker_deals_four_and_the_fifth_rotates_out(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        players = seat_players(table, [1, 2, 3, 4, 5])
        for player in players:
            buy(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert [(d.seat, d.fee_cents) for d in plan.dealt] == [(1, 100), (2, 100), (3, 100), (4, 100)]
        assert [(o.seat, o.reason) for o in plan.left_out] == [(5, "rotates_out")]
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert chips(table, *players) == [9_900, 9_900, 9_900, 9_900, 10_000]
        hand_flow.misdeal(hand=hand, reason_code="wrong_count", by=None)
        assert chips(table, *players) == [10_000] * 5

    def test_no_collection_rate(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        services.create_schedule(
            code="CP-HEADSUP",
            name="Heads-up only",
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 2, "payer": "each_player", "fee_cents": 100}],
            by=None,
        )  # fmt: skip
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP-HEADSUP")
        for player in seat_players(table, [1, 2, 3]):
            buy(table, player, 10_000)
        with pytest.raises(errors.NoCollectionRate, match="no rate for \\$5 a point with 3 players"):
            hand_flow.start_hand(table=table, by=None)

    def test_the_schedule_in_force_when_the_hand_starts_decides_its_fee(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        players = seat_players(table, [1, 2, 3])
        for player in players:
            buy(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None).hand
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP2"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 500, "others_fee_cents": 300}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="new fees",
        )  # fmt: skip
        # The hand in progress keeps the fees it paid; a preview now still shows the old rate.
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == [200, 100, 100]
        assert hand_flow.preview_fees(table=table).total_fees_cents == 400
        hand_flow.misdeal(hand=hand, reason_code="other", reason="redeal", by=None)
        time.sleep(1.1)
        redeal = hand_flow.start_hand(table=table, by=None).hand
        assert [hp.fee_cents for hp in redeal.players.order_by("position")] == [500, 300, 300]
        assert chips(table, *players) == [9_500, 9_700, 9_700]
        # The fees collected are those of tables.selectors.rate_for_hand, for both hands.
        for started, fees in ((hand, [200, 100, 100]), (redeal, [500, 300, 300])):
            rate = rate_for_hand(started)
            assert rate is not None
            assert rate.fees_by_position(3) == fees

    def test_a_hand_pays_the_rate_in_force_at_its_recorded_start(
        self, make_table: MakeTable, seat_players: SeatPlayers, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The hand's start is the moment its plan read the rate: a version that takes effect after
        that moment, even one already in force when the row is written, is the next hand's, and
        the fees collected are always those of ``rate_for_hand`` (the rate at ``created_at``)."""
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        ana, ben, cat = seat_players(table, [1, 2, 3])
        buy(table, ana, 10_000)
        buy(table, ben, 20_000)
        buy(table, cat, 10_000)
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP2"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 6_000, "others_fee_cents": 100}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="a $60 button fee",
        )  # fmt: skip
        time.sleep(1.1)
        # The flow's clock lags behind the new version: the hand starts under the old rate.
        lagging = timezone.now() - datetime.timedelta(seconds=5)
        with monkeypatch.context() as patched:
            # The deal reads its clock in handflow.deal (the module that defines start_hand).
            patched.setattr(deal, "timezone", SimpleNamespace(now=lambda: lagging))
            hand = hand_flow.start_hand(table=table, by=None).hand
        assert hand.created_at == lagging
        old = rate_for_hand(hand)
        assert old is not None
        assert old.fees_by_position(3)[0] == 200  # $2 from Ana, the button
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == old.fees_by_position(3)
        assert sum(chips(table, ana, ben, cat)) == 40_000 - sum(old.fees_by_position(3))
        hand_flow.misdeal(hand=hand, reason_code="other", reason="redeal", by=None)
        # Now: the $60 button fee. Ana can't pay it and keep 9 points: the button goes to Ben,
        # and Ana sits the hand out.
        redeal = hand_flow.start_hand(table=table, by=None).hand
        assert (redeal.button_seat.number, [hp.seat.number for hp in redeal.players.all()]) == (2, [2, 3])
        assert [hp.fee_cents for hp in redeal.players.order_by("position")] == [6_000, 100]
        assert chips(table, ana, ben, cat) == [10_000, 14_000, 9_900]
        new = rate_for_hand(redeal)
        assert new is not None
        assert new.fees_by_position(2) == [6_000, 100]


class TestLowballJoker:
    """004 lowball rule 1: lowball is played with the joker, but none is added when lowball is
    played in dealer's choice. A JK-2-3-4-6 won a $16 pot at dealer's choice."""

    SHOWDOWN = {
        "players": [
            {"seat": 1, "cards": ["JK", "2c", "3d", "4h", "6s"], "put_in": 800},
            {"seat": 2, "cards": ["As", "2d", "3h", "5c", "7d"], "put_in": 800},
        ]
    }

    def test_dealers_choice_lowball_has_no_joker(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
        for player in seat_players(table, [1, 2]):
            give(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None, game=Game.objects.get(slug="lowball")).hand
        assert Hand.objects.get(pk=hand.pk).joker is False
        with pytest.raises(errors.InvalidShowdown, match="joker JK is not in the deck"):
            hand_flow.submit_showdown(hand=hand, submitted=self.SHOWDOWN, by=None)
        assert not HandResult.objects.filter(hand=hand).exists()

    def test_lowball_as_the_tables_game_has_the_joker(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="lowball", stakes="limit-4-8", schedule="A")
        for player in seat_players(table, [1, 2]):
            give(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert Hand.objects.get(pk=hand.pk).joker is True
        reading = hand_flow.submit_showdown(hand=hand, submitted=self.SHOWDOWN, by=None).reading
        assert reading.postings["net"] == {"1": 800, "2": -800}  # the joker plays as the 5: 6-4-3-2-A


@pytest.mark.parametrize("at_dealers_choice", [False, True])
def test_only_lowball_dealt_as_the_tables_game_has_the_joker(at_dealers_choice: bool) -> None:
    table = Table(
        game=Game(
            slug="dealers-choice" if at_dealers_choice else "lowball", is_dealers_choice=at_dealers_choice
        )
    )
    for slug, rules in GAME_RULES.items():
        if rules.is_pot_game:
            has_joker = deal.joker_in_deck(table=table, game=Game(slug=slug))
            assert has_joker is (slug == "lowball" and not at_dealers_choice), slug
    assert deal.joker_in_deck(table=table, game=Game(slug="a game the engine doesn't know")) is False


@pytest.mark.parametrize(("pct", "blind"), [(150, 600), (200, 800), (100, None), (175, None)])
def test_the_kill_blind_a_hand_posted(pct: int, blind: int | None) -> None:
    """A kill hand's blind from its recorded percent: x1.5 (half kill) or x2 (full kill) the big
    blind, up to a whole chip; a percent no kill has is no kill blind."""
    hand = Hand(
        kill_seat_id=1,
        kill_multiplier_pct=pct,
        stakes=Stakes(small_bet_cents=400),
        table=Table(chip_unit_cents=100),
    )
    assert deal.hand_kill_blind(hand) == blind
    assert KillType.HALF.multiplier_pct == 150
    assert KillType.FULL.multiplier_pct == 200

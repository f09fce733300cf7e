"""Collection schedules (tables/services/schedules.py): versions that never rewrite the past, a
hand's fee as in force when it started, at most five rates at a table, the rates' checks."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from tables import errors, services
from tables.models import CollectionSchedule, ConfigAction, Stakes
from tables.selectors import rate_for, rate_for_hand, table_rates
from tests.tables.floor_checks import BuyIn, Deal, MakeTable, Settle, cp_rate, history_of


class TestSchedules:
    def test_revise_schedule_never_rewrites_the_past(self, house: None, floor_user: Any) -> None:
        schedule = CollectionSchedule.objects.get(code="CP1")
        old = schedule.version_at()
        assert old is not None
        stakes = Stakes.objects.get(code="points-5")
        before = timezone.now()
        later = before + datetime.timedelta(hours=2)
        version = services.revise_schedule(
            schedule=schedule,
            rates=[
                {
                    "structure": "points",
                    "point_min_cents": 100,
                    "point_max_cents": 10000,
                    "players_min": 1,
                    "players_max": 10,
                    "payer": "each_player",
                    "fee_cents": 150,
                }
            ],
            effective_from=later,
            by=floor_user,
            reason="new fee from tonight",
        )
        assert version.number == old.number + 1
        found_now = rate_for(schedule=schedule, stakes=stakes, players=4, at=before)
        found_later = rate_for(schedule=schedule, stakes=stakes, players=4, at=later)
        assert found_now is not None
        assert found_now.fee_cents == 100
        assert found_later is not None
        assert found_later.fee_cents == 150
        change = history_of(schedule).filter(action=ConfigAction.NEW_VERSION).get()
        assert change.before["rates"][0]["fee_cents"] == 100
        assert change.after["rates"][0]["fee_cents"] == 150
        with pytest.raises(errors.InvalidSchedule, match="after it"):
            services.revise_schedule(
                schedule=schedule,
                rates=[{**cp_rate(), "fee_cents": 1}],
                effective_from=later,
                by=floor_user,
                reason="x",
            )

    def test_past_effective_time_is_refused(self, house: None) -> None:
        schedule = CollectionSchedule.objects.get(code="CP1")
        with pytest.raises(errors.InvalidSchedule, match="never rewrites the past"):
            services.revise_schedule(
                schedule=schedule,
                rates=[cp_rate()],
                by=None,
                reason="x",
                effective_from=timezone.now() - datetime.timedelta(minutes=5),
            )
        assert schedule.versions.count() == 1

    def test_hand_fee_is_looked_up_as_in_force_when_it_started(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        buy_in_players(table, [1, 2, 3])
        hand = deal_hand(table)
        services.revise_schedule(
            schedule=table.collection_schedule,
            rates=[{**cp_rate(), "payer": "button_and_others", "fee_cents": 500, "others_fee_cents": 300}],
            by=None,
            reason="higher fee",
        )
        rate = rate_for_hand(hand)
        assert rate is not None
        assert rate.fees_by_position(3) == [200, 100, 100]
        settle_hand(hand)
        later = rate_for_hand(deal_hand(table))
        assert later is not None
        assert later.fees_by_position(3) == [500, 300, 300]

    def test_at_most_five_rates_at_a_table(self, make_table: MakeTable) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        six = [{**cp_rate(), "players_min": n, "players_max": n} for n in range(1, 7)]
        with pytest.raises(errors.TooManyRates, match="at most 5"):
            services.revise_schedule(
                schedule=table.collection_schedule, rates=six, by=None, reason="split bands"
            )
        assert table.collection_schedule.versions.count() == 1
        five = [*six[:4], {**cp_rate(), "players_min": 5, "players_max": 10}]
        services.revise_schedule(
            schedule=table.collection_schedule, rates=five, by=None, reason="split bands"
        )
        assert len(table_rates(table)) == 5

    def test_new_schedule_with_six_rates_cannot_be_put_on_a_table(self, make_table: MakeTable) -> None:
        six = [{**cp_rate(), "players_min": n, "players_max": n} for n in range(1, 7)]
        schedule = services.create_schedule(code="CP9", name="Too fine", rates=six, by=None)
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        with pytest.raises(errors.TooManyRates):
            services.configure_table(table=table, collection_schedule=schedule, by=None, reason="try it")
        table.refresh_from_db()
        assert table.collection_schedule.code == "CP1"

    def test_overlapping_bands_are_refused(self, house: None) -> None:
        with pytest.raises(errors.InvalidSchedule, match="overlap"):
            services.create_schedule(
                code="X",
                name="x",
                by=None,
                rates=[
                    {**cp_rate(), "players_min": 1, "players_max": 4},
                    {**cp_rate(), "players_min": 4, "players_max": 6},
                ],
            )

    @pytest.mark.parametrize(
        ("rate", "field"),
        [
            ({"payer": "button_and_others", "fee_cents": 200}, "others_fee_cents"),
            ({"payer": "each_player", "fee_cents": 100, "others_fee_cents": 50}, "others_fee_cents"),
            ({"fee_cents": -1}, "fee_cents"),
            ({"players_min": 5, "players_max": 4}, "players_max"),
            ({"point_min_cents": None}, "point_min_cents"),
        ],
    )
    def test_bad_rates(self, house: None, rate: dict[str, Any], field: str) -> None:
        with pytest.raises(errors.InvalidSchedule) as caught:
            services.create_schedule(code="X", name="x", by=None, rates=[{**cp_rate(), **rate}])
        assert f"rates[0].{field}" in caught.value.errors
        assert not CollectionSchedule.objects.filter(code="X").exists()

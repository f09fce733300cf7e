"""Stakes (tables/services/stakes.py): created only when their limits hold together."""

from __future__ import annotations

from typing import Any

import pytest

from tables import errors, services
from tables.models import Stakes


class TestStakes:
    def test_kill_at_no_limit_is_refused(self, db: None) -> None:
        with pytest.raises(errors.InvalidStakes, match="No kill at no limit") as caught:
            services.create_stakes(
                code="nl-kill", structure="no_limit", buy_in_min_cents=2000, kill="half", by=None
            )
        assert caught.value.field == "kill"
        assert not Stakes.objects.filter(code="nl-kill").exists()

    @pytest.mark.parametrize(
        ("fields", "field"),
        [
            ({"structure": "limit", "small_bet_cents": 800}, "big_bet_cents"),
            ({"structure": "limit", "small_bet_cents": 800, "big_bet_cents": 400}, "big_bet_cents"),
            (
                {
                    "structure": "limit",
                    "small_bet_cents": 200,
                    "big_bet_cents": 400,
                    "alt_small_bet_cents": 200,
                },
                "alt_big_bet_cents",
            ),
            (
                {"structure": "pot_limit", "buy_in_min_cents": 5000, "buy_in_max_cents": 2000},
                "buy_in_max_cents",
            ),
            ({"structure": "no_limit"}, "buy_in_min_cents"),
            ({"structure": "points"}, "point_cents"),
            ({"structure": "points", "point_cents": 500, "small_bet_cents": 100}, "small_bet_cents"),
        ],
    )
    def test_inconsistent_stakes(self, db: None, fields: dict[str, Any], field: str) -> None:
        with pytest.raises(errors.InvalidStakes) as caught:
            services.create_stakes(code="bad", by=None, **fields)
        assert field in caught.value.errors

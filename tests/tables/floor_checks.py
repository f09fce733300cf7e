"""Plain helpers of the floor services' tests (tests/tables/test_tables.py, test_seating.py,
test_hands.py, test_schedules.py): the fixtures' call types, a row's configuration history, the
floor's counts a refused call must leave as they were, and a collection rate at points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.contenttypes.models import ContentType

from tables.models import ConfigChange, Hand, Player, Seating, Table

MakeTable = Callable[..., Table]
SeatPlayers = Callable[..., list[Player]]
BuyIn = Callable[..., list[Player]]
Deal = Callable[..., Hand]
Settle = Callable[..., Hand]


def history_of(obj: Any) -> Any:
    return ConfigChange.objects.filter(
        content_type=ContentType.objects.get_for_model(obj), object_id=str(obj.pk)
    )


def snapshot_floor() -> tuple[Any, ...]:
    """Counts and states that a refused call must leave exactly as they were."""
    return (
        Seating.objects.count(),
        Seating.objects.active().count(),
        Hand.objects.count(),
        list(Hand.objects.values_list("status", flat=True).order_by("pk")),
        list(Table.objects.values_list("status", "stakes_id", "collection_schedule_id").order_by("pk")),
        ConfigChange.objects.count(),
    )


def cp_rate() -> dict[str, Any]:
    """A rate of a points game, each player paying $1, for any point and 1 to 10 players."""
    return {
        "structure": "points",
        "point_min_cents": 100,
        "point_max_cents": 10000,
        "players_min": 1,
        "players_max": 10,
        "payer": "each_player",
        "fee_cents": 100,
    }

"""Model-level guarantees: database constraints (the backstop behind the services) and helpers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from casino.core.money import format_cents
from tables import errors
from tables.choices import HandStatus
from tables.models import (
    HAND_TRANSITIONS,
    CollectionSchedule,
    ConfigChange,
    Game,
    Hand,
    Player,
    Seating,
    Stakes,
    Table,
)


def test_one_player_per_seat_in_the_database(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table()
    seat = table.seats.get(number=1)
    Seating.objects.create(table=table, seat=seat, player=make_player())
    with pytest.raises(IntegrityError), transaction.atomic():
        Seating.objects.create(table=table, seat=seat, player=make_player())


def test_one_seat_per_player_per_table_in_the_database(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table, ana = make_table(), make_player()
    Seating.objects.create(table=table, seat=table.seats.get(number=1), player=ana)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seating.objects.create(table=table, seat=table.seats.get(number=2), player=ana)


def test_one_hand_in_progress_per_table_in_the_database(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    hand = deal_hand(table)
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(
            table=table,
            number=2,
            game=hand.game,
            stakes=hand.stakes,
            collection_schedule=hand.collection_schedule,
            button_seat=hand.button_seat,
        )


def test_kill_only_at_limit_in_the_database(db: None) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Stakes.objects.create(code="bad", structure="no_limit", buy_in_min_cents=100, kill="full")


def test_stakes_clean_reports_by_field(db: None) -> None:
    stakes = Stakes(code="x", structure="pot_limit", buy_in_min_cents=2000, kill="half")
    with pytest.raises(ValidationError) as caught:
        stakes.full_clean()
    assert "kill" in caught.value.message_dict


def test_table_clean_reports_mismatch(house: None) -> None:
    table = Table(
        number=50,
        game=Game.objects.get(slug="holdem"),
        stakes=Stakes.objects.get(code="points-5"),
        seat_count=10,
        collection_schedule=CollectionSchedule.objects.get(code="A"),
    )
    with pytest.raises(ValidationError) as caught:
        table.full_clean()
    assert "stakes" in caught.value.message_dict


def test_member_number_unique_when_set(db: None) -> None:
    Player.objects.create(name="A", member_number="M1")
    Player.objects.create(name="B", member_number="  ")  # stored as NULL
    Player.objects.create(name="C")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(name="D", member_number="M1")
    assert Player.objects.filter(member_number__isnull=True).count() == 2


def test_config_history_is_append_only(house: None) -> None:
    change = ConfigChange.objects.first()
    assert change is not None
    change.reason = "rewritten"
    with pytest.raises(TypeError):
        change.save()
    with pytest.raises(TypeError):
        change.delete()
    with pytest.raises(TypeError):
        ConfigChange.objects.update(reason="x")
    with pytest.raises(TypeError):
        ConfigChange.objects.all().delete()


def test_transition_table_is_complete() -> None:
    assert set(HAND_TRANSITIONS) == set(HandStatus.values)
    assert HAND_TRANSITIONS[HandStatus.SETTLED] == HAND_TRANSITIONS[HandStatus.VOID] == frozenset()
    hand = Hand(status=HandStatus.OPEN)
    assert hand.can_transition(HandStatus.DEALT)
    assert not hand.can_transition(HandStatus.SHOWDOWN)


def test_check_transition_names_the_allowed_ones() -> None:
    # An open hand exists only inside the deal (handflow.services.start_hand), so an unsaved one.
    hand = Hand(status=HandStatus.OPEN, number=1, table=Table(number=5))
    with pytest.raises(errors.IllegalTransition, match="Allowed next statuses: dealt, void"):
        hand.check_transition(HandStatus.SHOWDOWN)


@pytest.mark.parametrize(("cents", "text"), [(400, "$4"), (450, "$4.50"), (100000, "$1,000"), (5, "$0.05")])
def test_format_cents(cents: int, text: str) -> None:
    assert format_cents(cents) == text


def test_labels(house: None) -> None:
    assert Stakes.objects.get(code="limit-4-10-4-20-full").label == "$4-$10/$4-$20 limit, full kill"
    assert Stakes.objects.get(code="pl-200-1000").label == "$200-$1,000 pot limit"
    assert Stakes.objects.get(code="points-5").label == "$5 a point"
    rate = CollectionSchedule.objects.get(code="CP2").rates_at()[0]
    assert (rate.limits_label, rate.fee_label) == ("$1 - $100", "button $2, others $1")


def test_board_name_is_first_name_and_initial_or_the_alias() -> None:
    assert Player(name="Ann Marie Smith").board_name == "Ann S."
    assert Player(name="Cher").board_name == "Cher"
    assert Player(name="Ann Smith", board_alias="Big Slick").board_name == "Big Slick"

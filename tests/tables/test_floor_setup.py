"""Tables set up from the floor: a table's kill chosen with its stakes, every change between hands
and in the change log in words, and 004's Seven Card Stud Choice (a choice game with its own list)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from backoffice.reports.changes import describe_change
from tables import errors, services
from tables.house_data import load_house_data
from tables.models import CollectionSchedule, ConfigChange, Game, Hand, Player, Stakes, Table

MakeTable = Callable[..., Table]


def latest_change(table: Table) -> list[str]:
    change = ConfigChange.objects.filter(content_type__model="table", object_id=str(table.pk)).first()
    assert change is not None
    return describe_change(change.before, change.after)


def test_a_table_is_created_with_the_kill_chosen(house: None) -> None:
    table = services.create_table(
        number=40,
        game=Game.objects.get(slug="holdem"),
        stakes=Stakes.objects.get(code="limit-4-8"),
        collection_schedule=CollectionSchedule.objects.get(code="A"),
        kill="half",
        seat_count=9,
        chip_unit_cents=100,
        by=None,
        reason="new game for the evening",
    )
    assert table.stakes.code == "limit-4-8-half"
    assert (table.seat_count, table.seats.count(), table.status) == (9, 9, "closed")
    assert "Stakes $4-$8 limit, half kill" in latest_change(table)


def test_choosing_a_kill_at_no_limit_is_refused(house: None) -> None:
    with pytest.raises(errors.InvalidStakes):
        services.create_table(
            number=41,
            game=Game.objects.get(slug="holdem"),
            stakes=Stakes.objects.get(code="nl-100-500"),
            collection_schedule=CollectionSchedule.objects.get(code="A"),
            kill="full",
            by=None,
        )
    assert not Table.objects.filter(number=41).exists()


def test_a_kill_the_house_data_lacks_makes_its_stakes_once(house: None) -> None:
    base = services.create_stakes(
        code="limit-7-14", structure="limit", small_bet_cents=700, big_bet_cents=1400, by=None
    )
    made = services.stakes_with_kill(stakes=base, kill="full", by=None, reason="full kill tonight")
    assert (made.code, made.kill, made.small_bet_cents, made.big_bet_cents) == (
        "limit-7-14-full",
        "full",
        700,
        1400,
    )
    assert services.stakes_with_kill(stakes=base, kill="full", by=None) == made
    assert services.stakes_with_kill(stakes=made, kill="none", by=None) == base


def test_configure_changes_game_stakes_kill_schedule_seats_and_chip_in_words(
    make_table: MakeTable, floor_user: object
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    table = services.configure_table(
        table=table,
        by=floor_user,  # type: ignore[arg-type]
        reason="stud tonight",
        game=Game.objects.get(slug="stud"),
        stakes=Stakes.objects.get(code="limit-6-12"),
        kill="full",
        seat_count=8,
        chip_unit_cents=100,
    )
    assert (table.game.slug, table.stakes.code, table.seat_count) == ("stud", "limit-6-12-full", 8)
    words = latest_change(table)
    assert "Game: Texas Hold'em -> Seven card stud" in words
    assert "Stakes: $4-$8 limit -> $6-$12 limit, full kill" in words
    assert any(item.startswith("Seats:") for item in words)


def test_configure_is_refused_during_a_hand(
    table_with_players: Callable[..., tuple[Table, list[Player]]], deal_hand: Callable[..., Hand]
) -> None:
    table, _players = table_with_players(3, stakes="limit-4-8")
    deal_hand(table)
    with pytest.raises(errors.HandInProgress):
        services.configure_table(table=table, by=None, reason="half kill", kill="half")
    table.refresh_from_db()
    assert table.stakes.code == "limit-4-8"


def test_stud_choice_is_seeded_with_its_three_games(house: None) -> None:
    stud_choice = Game.objects.get(slug="stud-choice")
    assert (stud_choice.is_dealers_choice, stud_choice.is_stud_game) == (True, True)
    assert sorted(g.slug for g in stud_choice.choice_of.all()) == ["razz", "stud", "stud-hi-lo"]
    assert stud_choice.choice_label() == "Seven card stud, Seven card stud hi-lo, Razz"
    created = ConfigChange.objects.filter(content_type__model="game", object_id=str(stud_choice.pk)).first()
    assert created is not None
    assert created.after["choice_of"] == "Seven card stud, Seven card stud hi-lo, Razz"
    before = ConfigChange.objects.count()
    assert not load_house_data().changed  # loading again changes nothing
    assert ConfigChange.objects.count() == before


def test_at_stud_choice_the_button_picks_among_three_games_only(
    make_table: MakeTable, buy_in_players: Callable[..., list[Player]], deal_hand: Callable[..., Hand]
) -> None:
    table = make_table(game="stud-choice", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3])
    with pytest.raises(errors.FloorValidationError, match="give the game the button picked"):
        deal_hand(table)
    for refused in ("holdem", "omaha", "five-card-stud", "dealers-choice"):
        with pytest.raises(errors.ConfigMismatch, match="Seven card stud, Seven card stud hi-lo, Razz"):
            deal_hand(table, game=refused)
    assert not Hand.objects.filter(table=table).exists()
    hand = deal_hand(table, game="stud-hi-lo")
    assert (hand.game.slug, hand.table_id) == ("stud-hi-lo", table.pk)


def test_dealers_choice_still_picks_any_approved_pot_game(house: None) -> None:
    from tables.selectors import choice_games

    picked = {g.slug for g in choice_games(Game.objects.get(slug="dealers-choice"))}
    assert {"holdem", "omaha", "razz", "lowball", "option-alley"} <= picked
    assert not picked & {"dealers-choice", "stud-choice", "chinese-poker", "taiwanese-poker"}
    assert choice_games(Game.objects.get(slug="holdem")) == []

"""Dealers' downs: a dealer clocks in at a table (the floor may assign one), and only the dealer
clocked in there, or the floor, runs its hands; each hand records its dealer and down (issue
"Tamper-evident beyond the database owner...", roles as documented)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from handflow import services as hand_flow
from tables import errors, services
from tables.choices import HandStatus
from tables.models import DealerShift, Table
from tables.roles import DEALER, sync_roles

MakeTable = Callable[..., Table]
BuyIn = Callable[..., Any]


@pytest.fixture
def second_dealer(users: dict[str, Any]) -> Any:
    dealer = get_user_model().objects.create_user(username="dealer2", password="pw-dealer2")
    dealer.groups.add(sync_roles()[DEALER])
    return dealer


def test_a_dealer_clocks_in_and_runs_that_tables_hands_only(
    make_table: MakeTable, buy_in_players: BuyIn, users: dict[str, Any]
) -> None:
    here, there = make_table(), make_table()
    buy_in_players(here, [1, 2])
    buy_in_players(there, [1, 2])
    dealer = users["dealer"]
    with pytest.raises(errors.NotYourTable, match="nobody is clocked in there") as refused:
        hand_flow.start_hand(table=here, by=dealer)
    assert (refused.value.status, refused.value.code) == (403, "not_clocked_in")
    down = services.clock_in(table=here, dealer=dealer, by=dealer).shift
    assert (down.table, down.dealer, down.clocked_in_by, down.is_open) == (here, dealer, dealer, True)
    hand = hand_flow.start_hand(table=here, by=dealer).hand
    assert (hand.dealer, hand.dealer_shift) == (dealer, down)
    with pytest.raises(errors.NotYourTable, match="dealer clocked in at table"):
        hand_flow.start_hand(table=there, by=dealer)
    # The floor runs any table; the hand records the dealer on duty there (none at ``there``).
    other = hand_flow.start_hand(table=there, by=users["floor"]).hand
    assert (other.dealer, other.dealer_shift) == (users["floor"], None)
    voided = hand_flow.misdeal(hand=hand, reason_code="two_exposed", by=dealer).hand
    assert (voided.status, voided.voided_by) == (HandStatus.VOID, dealer)


def test_clocking_in_again_is_the_same_down_and_elsewhere_ends_it(
    make_table: MakeTable, users: dict[str, Any]
) -> None:
    one, two = make_table(), make_table()
    dealer = users["dealer"]
    clocked = services.clock_in(table=one, dealer=dealer, by=dealer)
    again = services.clock_in(table=one, dealer=dealer, by=dealer)
    assert (clocked.replayed, again.shift.pk, again.replayed) == (False, clocked.shift.pk, True)
    first = clocked.shift
    moved = services.clock_in(table=two, dealer=dealer, by=dealer).shift
    first.refresh_from_db()
    assert (first.clocked_out_by, first.is_open, moved.is_open) == (dealer, False, True)
    assert services.dealer_on_duty(one) is None
    assert services.dealer_on_duty(two) == moved


def test_the_floor_assigns_a_dealer_and_a_dealer_assigns_nobody(
    make_table: MakeTable, users: dict[str, Any], second_dealer: Any
) -> None:
    table = make_table()
    mine = services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"]).shift
    with pytest.raises(errors.NotYourTable, match="only themself"):
        services.clock_in(table=table, dealer=users["dealer"], by=second_dealer)
    with pytest.raises(errors.NotYourTable):
        services.clock_out(table=table, by=second_dealer)
    assigned = services.clock_in(table=table, dealer=second_dealer, by=users["floor"]).shift
    mine.refresh_from_db()
    assert (mine.clocked_out_by, assigned.dealer, assigned.clocked_in_by) == (
        users["floor"],
        second_dealer,
        users["floor"],
    )
    with pytest.raises(errors.NotADealer):
        services.clock_in(table=table, dealer=users["auditor"], by=users["floor"])
    with pytest.raises(errors.NotYourTable, match="Log in"):
        services.clock_in(table=table, dealer=second_dealer, by=None)
    ended = services.clock_out(table=table, by=second_dealer)
    assert ended is not None
    assert ended.clocked_out_at is not None
    assert services.clock_out(table=table, by=second_dealer) is None  # nobody left: nothing to do


def test_a_down_ends_between_hands_and_only_at_an_open_table(
    make_table: MakeTable, buy_in_players: BuyIn, users: dict[str, Any], second_dealer: Any
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    dealer = users["dealer"]
    services.clock_in(table=table, dealer=dealer, by=dealer)
    hand = hand_flow.start_hand(table=table, by=dealer).hand
    with pytest.raises(errors.HandInProgress):
        services.clock_out(table=table, by=dealer)
    with pytest.raises(errors.HandInProgress):
        services.clock_in(table=table, dealer=second_dealer, by=users["floor"])
    with pytest.raises(errors.HandInProgress):  # the dealer can't walk off mid-hand either
        services.clock_in(table=make_table(), dealer=dealer, by=dealer)
    hand_flow.misdeal(hand=hand, reason_code="different_back", by=dealer)
    assert services.clock_out(table=table, by=dealer) is not None
    with pytest.raises(errors.TableClosed):
        services.clock_in(table=make_table(open=False), dealer=dealer, by=dealer)


def test_the_database_refuses_two_open_downs(make_table: MakeTable, users: dict[str, Any]) -> None:
    table, other = make_table(), make_table()
    services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    with pytest.raises(IntegrityError), transaction.atomic():
        DealerShift.objects.create(table=table, dealer=users["floor"], clocked_in_by=users["floor"])
    with pytest.raises(IntegrityError), transaction.atomic():
        DealerShift.objects.create(table=other, dealer=users["dealer"], clocked_in_by=users["floor"])

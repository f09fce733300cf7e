"""The hand read once, typed (:func:`handflow.hand_view.hand_view`): its players dealt in with
their chips at the table (as the ledger has them), the reading on record with its ledger lines and
the engine's reading typed, whether a misdeal's fees went back, and its outcome alone (the
screen's last hand) without the players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from handflow.hand_view import HandView, hand_view
from ledger import selectors as ledger_selectors
from poker.postings import Postings
from poker.reading import Reading
from tables.choices import HandStatus
from tables.models import Hand, HandResult, Player, Table


@pytest.fixture
def dealt(
    table_with_players: Callable[..., tuple[Table, list[Player]]], deal_hand: Callable[..., Hand]
) -> Hand:
    table, _players = table_with_players(3, stakes="limit-4-8")
    return deal_hand(table)


def _chips_by_seat(view: HandView) -> dict[int, int]:
    return {hp.seat.number: view.chips_of(hp) for hp in view.players}


def test_a_dealt_hand_has_its_players_chips_and_fees_and_no_reading(dealt: Hand) -> None:
    view = hand_view(dealt)
    assert view.status == HandStatus.DEALT
    assert [hp.position for hp in view.players] == sorted(hp.position for hp in view.players)
    table_chips = ledger_selectors.table_chips(table=dealt.table)
    assert _chips_by_seat(view) == {hp.seat.number: table_chips[hp.player_id] for hp in view.players}
    assert view.fees_cents == sum(hp.fee_cents or 0 for hp in view.players) > 0
    assert (view.result, view.postings, view.reading, view.seat_nets) == (None, None, None, ())
    assert not view.fees_returned
    assert view.hand.button_seat.number in {hp.seat.number for hp in view.players}


def test_a_settled_hands_reading_and_postings_are_typed(
    dealt: Hand, settle_hand: Callable[..., Hand], django_assert_max_num_queries: Any
) -> None:
    settled = settle_hand(dealt)
    with django_assert_max_num_queries(3):  # the hand, its players with their chips, the reading
        view = hand_view(settled)
    result = HandResult.objects.get(hand=settled)
    assert view.status == HandStatus.SETTLED
    assert view.result == result
    assert view.postings == Postings.from_json(result.postings)
    assert view.reading == Reading.from_json(result.engine_result)
    assert view.seat_nets == Postings.from_json(result.postings).seat_nets
    assert sum(cents for _seat, cents in view.seat_nets) == 0
    assert not view.fees_returned


def test_a_misdeal_says_the_fees_went_back_and_the_outcome_reads_no_players(
    dealt: Hand, django_assert_max_num_queries: Any
) -> None:
    voided = hand_flow.misdeal(hand=dealt, reason_code="other", reason="boxed card", by=None).hand
    view = hand_view(voided)
    assert view.status == HandStatus.VOID
    assert view.fees_returned
    with django_assert_max_num_queries(1):  # whether the fees went back: nothing else
        outcome = hand_view(voided, fresh=True, seats=False)
    assert outcome.fees_returned
    assert (outcome.players, outcome.chips, outcome.result) == ((), {}, None)


def test_a_fresh_hand_and_what_the_service_returned_are_not_read_again(
    dealt: Hand, django_assert_num_queries: Any
) -> None:
    hand = Hand.objects.select_related("table", "game", "stakes", "collection_schedule", "dealer").get(
        pk=dealt.pk
    )
    players = list(hand.players.select_related("seat", "player").order_by("position"))
    chips = {hp.player_id: 123 for hp in players}
    with django_assert_num_queries(0):
        view = hand_view(hand, fresh=True, players=players, chips=chips)
    assert view.hand is hand
    assert view.players == tuple(players)
    assert {view.chips_of(hp) for hp in players} == {123}

"""The hand's money under concurrency, on PostgreSQL: real threads, each with its own connection,
against committed data. The table lock serialises the flows of a table; the ledger's idempotency
keys and the hand's status make a repeated request a replay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, connection
from rest_framework.test import APIClient

from handflow import services as hand_flow
from handflow.services import Dealt, Movement, Settled, Voided
from ledger import selectors as ledger_selectors
from ledger.models import JournalTransaction
from ledger.verification import verify_ledger
from tables import errors, services
from tables import services as floor_services
from tables.choices import HandStatus
from tables.models import Hand, HandResult, Player, ReadingStatus, Seating, Table
from tests.races import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SHOWDOWN = {
    "board": ["Ah", "Kd", "7c", "7s", "2h"],
    "players": [
        {"seat": 1, "cards": ["9c", "8c"], "put_in": 2_000},
        {"seat": 2, "cards": ["Qc", "Jd"], "put_in": 2_000},
        {"seat": 3, "cards": ["Tc", "3d"], "put_in": 500, "folded": True},
    ],
}


@pytest.fixture
def table(make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]) -> Table:
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    for i, player in enumerate(seat_players(table, [1, 2, 3])):
        hand_flow.buy_in(table=table, player=player, amount_cents=5_000, by=None, idempotency_key=f"r-{i}")
    return table


def chips(table: Table) -> list[int]:
    players = [s.player for s in Seating.objects.active().filter(table=table).order_by("seat__number")]
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def read_hand(table: Table) -> Hand:
    hand = hand_flow.start_hand(table=table, by=None).hand
    hand_flow.submit_showdown(hand=hand, submitted=SHOWDOWN, by=None)
    return hand


@pytest.mark.parametrize("round_", range(3))
def test_the_same_settlement_from_two_terminals_posts_once(table: Table, round_: int) -> None:
    hand = read_hand(table)
    results = race(*(lambda: hand_flow.confirm_settlement(hand=hand, by=None) for _ in range(2)))
    assert all(isinstance(r, Settled) for r in results), results
    assert sorted(r.replayed for r in results) == [False, True]
    assert JournalTransaction.objects.filter(idempotency_key=f"hand:{hand.pk}:settle").count() == 1
    # Seat 1 (the button) paid the $1 fee; seat 2's queen kicker takes $45.
    assert chips(table) == [2_900, 7_500, 4_500]
    assert Hand.objects.get(pk=hand.pk).status == HandStatus.SETTLED
    assert verify_ledger().ok


def test_the_same_confirmation_through_the_api_twice_at_once(table: Table, users: dict[str, Any]) -> None:
    hand = read_hand(table)
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])

    def confirm(key: str) -> int:
        client = APIClient()
        client.force_authenticate(users["dealer"])
        response = client.post(
            f"/api/terminal/hands/{hand.pk}/confirm/", {}, format="json", HTTP_IDEMPOTENCY_KEY=key
        )
        return int(response.status_code)

    # Two terminals (two keys) and one terminal retrying (one key), all at once.
    assert race(lambda: confirm("terminal-a-1"), lambda: confirm("terminal-b-1")) == [200, 200]
    assert race(lambda: confirm("terminal-a-2"), lambda: confirm("terminal-a-2")) == [200, 200]
    assert JournalTransaction.objects.filter(hand=hand, kind="pot_award").count() == 1
    assert chips(table) == [2_900, 7_500, 4_500]


def test_the_same_misdeal_twice_returns_the_fees_once(table: Table) -> None:
    hand = hand_flow.start_hand(table=table, by=None).hand
    assert chips(table) == [4_900, 5_000, 5_000]
    results = race(
        *(lambda: hand_flow.misdeal(hand=hand, reason_code="two_boxed", by=None) for _ in range(2))
    )
    assert all(isinstance(r, Voided) for r in results), results
    assert sorted(r.replayed for r in results) == [False, True]
    fee = JournalTransaction.objects.get(idempotency_key=f"hand:{hand.pk}:fees")
    assert JournalTransaction.objects.filter(reverses=fee).count() == 1
    assert chips(table) == [5_000, 5_000, 5_000]
    assert verify_ledger().ok


def test_two_buy_ins_racing_for_one_seat(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    """Two players race for one seat, each by a buy-in (which seats the player through
    :func:`tables.services.seat_player`): one is seated and gets the chips, the other gets SeatTaken
    and nothing is posted for them."""
    table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    ana, ben = make_player("Ana"), make_player("Ben")
    results = race(
        lambda: hand_flow.buy_in(
            table=table, player=ana, amount_cents=5_000, seat_number=4, by=None, idempotency_key="ana"
        ),
        lambda: hand_flow.buy_in(
            table=table, player=ben, amount_cents=6_000, seat_number=4, by=None, idempotency_key="ben"
        ),
    )
    winners = [r.movement for r in results if isinstance(r, Movement)]
    losers = [r for r in results if isinstance(r, errors.SeatTaken)]
    assert (len(winners), len(losers)) == (1, 1), results
    assert Seating.objects.active().filter(seat__table=table, seat__number=4).count() == 1
    winner = winners[0].player
    seated = Seating.objects.active().get(table=table, seat__number=4)
    assert seated.player == winner
    assert winners[0].seating == seated
    assert ledger_selectors.table_chips(table=table) == {winner.pk: winners[0].amount_cents}
    assert JournalTransaction.objects.filter(table=table).count() == 1
    assert verify_ledger().ok


def test_two_dealers_starting_a_hand_deal_one_and_collect_its_fees_once(table: Table) -> None:
    """The table lock serialises the two starts: one deals, the other finds the hand in progress."""
    results = race(*(lambda: hand_flow.start_hand(table=table, by=None) for _ in range(2)))
    assert sorted(type(r).__name__ for r in results) == ["Dealt", errors.HandInProgress.__name__], results
    assert Hand.objects.filter(table=table).count() == 1
    assert JournalTransaction.objects.filter(kind="fee", table=table).count() == 1
    assert chips(table) == [4_900, 5_000, 5_000]


def test_a_rebuy_racing_the_deal_is_either_in_the_stack_or_refused(table: Table) -> None:
    player = Seating.objects.active().get(table=table, seat__number=2).player
    results = race(
        lambda: hand_flow.start_hand(table=table, by=None),
        lambda: hand_flow.rebuy(
            table=table, player=player, amount_cents=2_000, by=None, idempotency_key="race"
        ),
    )
    hand = next(r.hand for r in results if isinstance(r, Dealt))
    stack = hand.players.get(player=player).stack_cents
    if isinstance(results[1], Movement):  # the rebuy went first: the deal counts it
        assert stack == 7_000
    else:  # the deal went first: the chips were locked
        assert isinstance(results[1], errors.ChipsLocked), results
        assert stack == 5_000
    assert ledger_selectors.player_chips(table=table, player=player) == stack


@pytest.mark.parametrize("where", ["mid-posting", "after-posting"])
def test_a_connection_dropped_mid_settlement_leaves_nothing_half_posted(
    table: Table, monkeypatch: pytest.MonkeyPatch, where: str, users: dict[str, AbstractBaseUser]
) -> None:
    from ledger.services import posting as ledger_posting

    hand = read_hand(table)
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    before = chips(table)
    seen: dict[str, int] = {}

    def drop() -> None:
        seen["settlements"] = JournalTransaction.objects.filter(
            idempotency_key=f"hand:{hand.pk}:settle"
        ).count()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    if where == "mid-posting":  # the entries are written, the balances not yet
        monkeypatch.setattr(ledger_posting, "_apply_balances", lambda lines: drop())
    else:  # the posting is complete, the hand not yet settled
        move = services.move_hand

        def dropping(hand: Hand, status: str, **kwargs: Any) -> list[str]:
            if status == HandStatus.SETTLED:
                drop()
            return move(hand, status, **kwargs)

        monkeypatch.setattr(services, "move_hand", dropping)
    (outcome,) = race(lambda: hand_flow.confirm_settlement(hand=hand, by=users["dealer"]))
    monkeypatch.undo()

    assert isinstance(outcome, DatabaseError), outcome
    assert seen["settlements"] == 1  # it was written inside the transaction that died
    assert not JournalTransaction.objects.filter(idempotency_key=f"hand:{hand.pk}:settle").exists()
    assert chips(table) == before
    assert Hand.objects.get(pk=hand.pk).status == HandStatus.SHOWDOWN
    assert HandResult.objects.get(hand=hand).status == ReadingStatus.PROPOSED
    assert verify_ledger().ok
    # The terminal retries once the link is back: it settles, once.
    assert not hand_flow.confirm_settlement(hand=hand, by=users["dealer"]).replayed
    assert chips(table) == [2_900, 7_500, 4_500]


def test_the_same_table_change_from_two_terminals_moves_once(
    table: Table, make_table: Callable[..., Table]
) -> None:
    other, third = make_table(stakes="nl-20-100"), make_table(stakes="nl-20-100")
    seating = Seating.objects.active().get(table=table, seat__number=1)
    # Two floor terminals move the same player at once, to two different tables (crossing locks).
    results = race(
        lambda: hand_flow.move_player(seating=seating, to_table=other, to_seat_number=2, by=None),
        lambda: hand_flow.move_player(seating=seating, to_table=third, to_seat_number=5, by=None),
    )
    moved = [r for r in results if isinstance(r, Seating)]
    assert len(moved) == 1, results
    assert any(isinstance(r, errors.NotSeated) for r in results), results
    player = seating.player
    where = {t.number: ledger_selectors.player_chips(table=t, player=player) for t in (table, other, third)}
    assert where == {table.number: 0, other.number: 0, third.number: 0} | {moved[0].table.number: 5_000}
    assert list(Seating.objects.active().filter(player=player)) == moved
    assert (
        JournalTransaction.objects.filter(idempotency_key=f"seating:{seating.pk}:table-change").count() == 1
    )
    assert verify_ledger().ok

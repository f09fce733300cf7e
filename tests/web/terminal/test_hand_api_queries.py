"""The SQL statements a hand costs through the dealer terminals' API (benchmarks/README.md, "Hand API").

Not a timing test: each request's statement count is bounded, so that an N+1, a per-request schema
or permission lookup, a savepoint per service or a response that reads the hand again row by row
shows up as a failure here rather than as a slower benchmark. The bounds are the counts measured
with six players dealt in (a session login, so the session, user and permission reads are counted)
plus a little headroom; they don't grow with the number of players.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, connection, transaction
from django.test import Client

from handflow import deal
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables import services
from tables.choices import HandStatus
from tables.models import CollectionSchedule, Game, Hand, Player, Stakes, Table
from tests.races import in_other_connection as _in_other_connection
from tests.web.terminal.terminal_client import fees_shown
from web.terminal.serializers import TerminalHandSerializer

# Measured 2026-11-24 on PostgreSQL, six players, inside the test's transaction (savepoints where a
# server has BEGIN/COMMIT): start 29 (28 once the house account exists), showdown 15, confirm 26;
# SQLite one or two fewer (no FOR KEY SHARE). Before the fixes of benchmarks/README.md "Hand API" a
# hand was 56, 25 and 53, and then 43, 20 and 38: these bounds fail on that code.
# Each hand service reads the table's open down (who may run its hands): one more query each.
# Measured 2026-11-25 (third session) on PostgreSQL as the app's role: the confirmation 30.
MAX_QUERIES = {"start": 32, "showdown": 17, "confirm": 30}

_keys = (f"query-count-{n:08d}" for n in itertools.count())


def _post(client: Client, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(
        url, body, content_type="application/json", headers={"Idempotency-Key": next(_keys)}
    )
    assert response.status_code in (200, 201), response.content
    return dict(response.json())


@pytest.fixture
def table(
    make_table: Callable[..., Table], seat_players: Callable[..., list[Player]], on_duty: Callable[..., Any]
) -> Table:
    table = make_table(number=57, game="holdem", stakes="nl-20-100", schedule="A")
    on_duty(table)
    for i, player in enumerate(seat_players(table, [1, 2, 3, 4, 5, 6])):
        hand_flow.buy_in(table=table, player=player, amount_cents=5_000, by=None, idempotency_key=f"qc-{i}")
    return table


@pytest.fixture
def dealer(users: dict[str, AbstractBaseUser]) -> Client:
    client = Client()
    client.force_login(users["dealer"])  # a session, as the terminals use
    return client


def _showdown(players: list[dict[str, Any]]) -> dict[str, Any]:
    holes = [["9c", "8c"], ["Qc", "Jd"], ["3c", "4d"], ["5s", "6d"], ["Ts", "Td"], ["Jh", "2c"]]
    return {
        "board": ["Ah", "Kd", "7c", "7s", "2h"],
        "players": [
            {"seat": p["seat_number"], "cards": cards, "put_in": 1_000}
            for p, cards in zip(players, holes, strict=False)
        ],
    }


def _chips_shown(response: dict[str, Any]) -> dict[int, int]:
    return {p["player"]: p["chips_cents"] for p in response["players"]}


def test_a_hand_stays_within_its_statements(
    dealer: Client, table: Table, django_assert_max_num_queries: Any
) -> None:
    """Also: the chips each response shows (built from what the flow holds, not read again) are
    the ledger's, and the response is the one a fresh read of the hand gives."""
    fees = 0
    for _ in range(2):  # the second hand: the button has moved, the accounts exist
        shown = fees_shown(dealer, table.number)
        with django_assert_max_num_queries(MAX_QUERIES["start"]):
            hand = _post(dealer, f"/api/terminal/tables/{table.number}/hands/", shown)
        assert len(hand["players"]) == 6
        assert _chips_shown(hand) == ledger_selectors.table_chips(table=table)
        with django_assert_max_num_queries(MAX_QUERIES["showdown"]):
            read = _post(dealer, f"/api/terminal/hands/{hand['id']}/showdown/", _showdown(hand["players"]))
        assert _chips_shown(read) == ledger_selectors.table_chips(table=table)
        with django_assert_max_num_queries(MAX_QUERIES["confirm"]):
            settled = _post(
                dealer,
                f"/api/terminal/hands/{hand['id']}/confirm/",
                {"revision": read["reading"]["revision"]},
            )
        assert settled["status"] == HandStatus.SETTLED
        assert Hand.objects.get(pk=hand["id"]).status == HandStatus.SETTLED
        chips = ledger_selectors.table_chips(table=table)
        assert _chips_shown(settled) == chips
        fees += sum(p["fee_cents"] for p in settled["players"])
        assert sum(chips.values()) == 6 * 5_000 - fees
        fresh = TerminalHandSerializer.from_hand(Hand.objects.get(pk=hand["id"]))
        assert json.loads(json.dumps(fresh, default=str)) == settled


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_table_lock_holds_only_the_table_and_the_start_holds_its_schedule(
    make_table: Callable[..., Table],
) -> None:
    """Two tables of one game and schedule lock independently (the joined game, stakes and schedule
    rows were locked FOR UPDATE too, so every flow in the room queued on them); a start still keeps
    a new schedule version from taking effect under it (FOR KEY SHARE on the schedule row)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    first = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    second = make_table(game="holdem", stakes="nl-20-100", schedule="A")
    with transaction.atomic():
        services.lock_table(first)
        deal._hold_schedule(first)
        # Another table of the same game, stakes and schedule: not blocked.
        locked = _in_other_connection(
            lambda: Table.objects.select_for_update(nowait=True).get(pk=second.pk).pk
        )
        assert locked == second.pk
        for model, pk in [(Game, first.game_id), (Stakes, first.stakes_id)]:
            got = _in_other_connection(
                lambda model=model, pk=pk: model.objects.select_for_update(nowait=True).get(pk=pk).pk
            )
            assert got == pk, f"{model.__name__} row locked by the table lock: {got!r}"
        # A schedule revision (FOR UPDATE on the schedule) has to wait for the start.
        revising = _in_other_connection(
            lambda: CollectionSchedule.objects.select_for_update(nowait=True).get(
                pk=first.collection_schedule_id
            )
        )
        assert isinstance(revising, DatabaseError)
        # Another start at a table on that schedule does not.
        assert _in_other_connection(lambda: deal._hold_schedule(second)) is None

"""The SQL statements the dealer terminal's screen costs per tap (issue #15, benchmarks/README.md
"Dealer terminal").

Not a timing test: each answer's statement count is bounded, so that a screen drawn with lazy
reads (the table's game, stakes and schedule read again after the service locked them, the
dealer's user row, a reading looked up for a hand that was just dealt, the table read twice for
the fee preview) shows up here as a failure rather than as a slower benchmark. The bounds are the
counts measured with six players dealt in, through a logged-in session (so the session, user and
permission reads are counted); they don't grow with the number of players.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from benchmarks.bench_terminal import FEE_FIELD, HAND_FIELD, REVISION_FIELD, SEAT_FIELD
from benchmarks.bench_terminal import entry as bench_entry
from casino.core.money import format_cents
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables.choices import HandStatus
from tables.models import Hand, Player, Table
from tests.web.terminal.test_terminal_page import HX, body, dealer_client

# Measured 2026-11-27 on PostgreSQL inside the test's transaction (SQLite has no FOR KEY SHARE and
# no schedule hold); the deal is one fewer once the shift's house account exists. The code before
# answered 12 / 31 / 19 / 37 on PostgreSQL (12 / 27 / 19 / 34 on SQLite): the read and the
# confirmation read the table's game, stakes and schedule (the read also the dealer) again after
# the service had locked them, the deal looked for a reading of the hand it had just dealt, and
# the fee preview read the table again and looked for a hand in progress the screen knew of.
MAX_QUERIES = {
    "postgresql": {"panel": 10, "deal": 30, "read": 15, "confirm": 32},
    "sqlite": {"panel": 10, "deal": 26, "read": 15, "confirm": 29},
}


@pytest.fixture
def table(
    users: dict[str, Any], make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]
) -> Table:
    table = make_table(number=58, game="holdem", stakes="nl-20-100", schedule="A")
    for i, player in enumerate(seat_players(table, [1, 2, 3, 4, 5, 6])):
        hand_flow.buy_in(table=table, player=player, amount_cents=5_000, by=None, idempotency_key=f"tq-{i}")
    return table


def test_each_tap_stays_within_its_statements(
    users: dict[str, Any], table: Table, django_assert_max_num_queries: Any
) -> None:
    """Two hands (the second with the accounts made and the button moved), each read twice (a card
    corrected); each answer is the screen with the ledger's chips."""
    bound = MAX_QUERIES["postgresql" if connection.vendor == "postgresql" else "sqlite"]
    dealer = dealer_client(users, table)
    rng = random.Random(58)
    with django_assert_max_num_queries(bound["panel"]):
        screen = body(dealer.get(f"/tables/{table.number}/", headers=HX))
    for _ in range(2):
        with django_assert_max_num_queries(bound["deal"]):
            response = dealer.post(
                f"/tables/{table.number}/start/", dict(FEE_FIELD.findall(screen)), headers=HX
            )
        dealt = body(response)
        assert response.status_code == 200, dealt
        found = HAND_FIELD.search(dealt)
        assert found is not None
        hand = found.group(1)
        seats = [int(s) for s in SEAT_FIELD.findall(dealt)]
        assert len(seats) == 6
        for _read in range(2):
            with django_assert_max_num_queries(bound["read"]):
                response = dealer.post(
                    f"/hands/{hand}/showdown/", bench_entry("holdem", seats, rng), headers=HX
                )
            read = body(response)
            assert response.status_code == 200, read
        revision = REVISION_FIELD.search(read)
        assert revision is not None
        with django_assert_max_num_queries(bound["confirm"]):
            response = dealer.post(f"/hands/{hand}/confirm/", {"revision": revision.group(1)}, headers=HX)
        screen = body(response)
        assert response.status_code == 200, screen
        assert Hand.objects.get(pk=hand).status == HandStatus.SETTLED
        # The next hand's screen shows every player's chips as the ledger has them now.
        for player_id, cents in ledger_selectors.table_chips(table=table).items():
            name = Player.objects.get(pk=player_id).name
            shown = f'{name}</span> · <span class="chips">{format_cents(cents)}</span>'
            assert shown in screen, name


# The same on both databases; 17 before (the view drew with its own read of the table).
SWEEP_QUERIES = {"postgresql": 14, "sqlite": 14}


def test_a_sweep_declaration_stays_within_its_statements(
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    django_assert_max_num_queries: Any,
) -> None:
    """Chinese poker: a clean sweep declared before the showdown is answered with the screen drawn
    from the table the service locked (not the view's earlier read, whose game, stakes and schedule
    were each read again)."""
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
    buy_in_players(table, [1, 2, 3, 4], 10_000)
    dealer = dealer_client(users, table)
    screen = body(dealer.get(f"/tables/{table.number}/", headers=HX))
    dealt = body(dealer.post(f"/tables/{table.number}/start/", dict(FEE_FIELD.findall(screen)), headers=HX))
    found = HAND_FIELD.search(dealt)
    assert found is not None
    with django_assert_max_num_queries(SWEEP_QUERIES[connection.vendor]):
        response = dealer.post(
            f"/hands/{found.group(1)}/sweep/", {"sweep_seat": "2", "declare_2": "dragon"}, headers=HX
        )
    assert response.status_code == 200, body(response)
    assert 'id="declared_2">Declared dragon' in body(response)

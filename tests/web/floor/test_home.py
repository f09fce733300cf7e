"""The home page (web/floor/home.py): the open tables, and the floor manager's overview of the
shift (hands and fees per table, a failed integrity check flagged)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.test import Client

from tables import services as floor_services
from tables.models import Player, Table


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_home_lists_open_tables(
    users: dict[str, Any], make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]
) -> None:
    open_table = make_table(number=3, stakes="limit-4-8-half")
    make_table(number=4, open=False)
    seat_players(open_table, [1, 2])
    page = logged_in(users["dealer"]).get("/").content.decode()
    assert "Texas Hold&#x27;em" in page
    assert "$4-$8 limit, half kill" in page
    assert "2 / 10" in page
    assert "<td>4</td>" not in page
    assert 'href="/api/docs/"' in page


def test_floor_overview_counts_this_shifts_hands_and_fees_and_flags_a_failed_check(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    from handflow import services as hand_flow
    from ledger.models import CheckSource, IntegrityCheck

    # Chinese poker, option 3: the button $3, the others $2 each ($7 a hand).
    table = make_table(number=7, game="chinese-poker", stakes="points-5", schedule="CP3")
    for seat in (1, 2, 3):
        hand_flow.buy_in(
            table=table,
            player=make_player(f"O{seat}"),
            amount_cents=10_000,
            seat_number=seat,
            by=users["floor"],
            idempotency_key=f"overview-{seat}",
        )
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["floor"])
    first = hand_flow.start_hand(table=table, by=users["dealer"]).hand
    hand_flow.misdeal(hand=first, reason_code="exposed_five", by=users["dealer"])  # fees returned
    hand_flow.start_hand(table=table, by=users["dealer"])

    page = logged_in(users["floor"]).get("/")
    html = page.content.decode()
    row = html[html.index("<td>7</td>") : html.index("</tr>", html.index("<td>7</td>"))]
    assert "<td>3 / 5</td>" in row
    assert "<td>1</td>" in row  # one hand dealt this shift: the void one is not counted
    assert "<td>$7</td>" in row  # the misdealt hand's fees were returned
    assert 'http-equiv="refresh"' in html
    assert 'id="integrity-failure"' not in html

    from django.utils import timezone

    now = timezone.now()
    IntegrityCheck.objects.create(
        started_at=now,
        finished_at=now,
        source=CheckSource.NIGHTLY,
        ok=False,
        problems=[{"code": "balance_mismatch"}],
        guards=[],
        software_version="test",
    )
    html = logged_in(users["floor"]).get("/").content.decode()
    assert 'id="integrity-failure"' in html
    assert "balance_mismatch" in html

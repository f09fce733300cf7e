"""The dealers' downs report: each down with its dealer, table, clock-in and clock-out (an open down
is on the table), the hands dealt in it, its misdeals and the fees of those hands from the ledger."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from backoffice.reports.common import ReportFilterError, ReportFilters
from backoffice.reports.downs import build_downs_report
from handflow import services as hand_flow
from ledger.models import AccountKind, Entry, TransactionKind
from ledger.shifts import room_zone
from tables import services as floor_services
from tables.models import Hand, Player, Table

pytestmark = pytest.mark.django_db


def _today(**kwargs: Any) -> ReportFilters:
    day = timezone.localtime(timezone.now(), room_zone()).date()
    return ReportFilters(date_from=day, date_to=day, **kwargs)


@pytest.fixture
def downs(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
    users: dict[str, Any],
) -> dict[str, Any]:
    dealer, floor = users["dealer"], users["floor"]
    first, _ = table_with_players(3, stakes="limit-4-8")
    second, _ = table_with_players(2, stakes="limit-4-8")
    floor_services.clock_in(table=first, dealer=dealer, by=dealer)
    hands = [settle_hand(deal_hand(first, by=dealer), by=dealer) for _ in range(2)]
    hand_flow.misdeal(hand=deal_hand(first, by=dealer), reason_code="boxed_cards", by=dealer)
    floor_services.clock_out(table=first, by=dealer)
    # The floor assigns the dealer to the second table: that down is still open.
    floor_services.clock_in(table=second, dealer=dealer, by=floor)
    hands.append(settle_hand(deal_hand(second, by=dealer), by=dealer))
    return {"first": first, "second": second, "hands": hands}


def test_each_down_with_its_hands_misdeals_and_fees(downs: dict[str, Any]) -> None:
    report = build_downs_report(_today())
    closed, open_down = report.lines
    assert (closed.dealer, closed.table_number, open_down.table_number) == (
        "dealer",
        downs["first"].number,
        downs["second"].number,
    )
    assert (closed.clocked_in_by, closed.clocked_out_by, open_down.clocked_in_by) == (
        "dealer",
        "dealer",
        "floor",
    )
    assert closed.clocked_out_at is not None
    assert open_down.on_the_table
    # Three hands were dealt at the first table, one of them a misdeal; one at the second.
    assert (closed.hands, closed.misdeals, open_down.hands, open_down.misdeals) == (3, 1, 1, 0)

    # The fees are the ledger's: the house collection's fee entries of the down's hands.
    def fees(table: Table, kind: str) -> int:
        total = Entry.objects.filter(
            transaction__hand__table=table, transaction__kind=kind, account__kind=AccountKind.HOUSE_COLLECTION
        ).aggregate(total=Sum("amount"))["total"]
        return int(total or 0)

    assert closed.fees_collected_cents == fees(downs["first"], TransactionKind.FEE) > 0
    assert closed.fees_returned_cents == -fees(downs["first"], TransactionKind.REVERSAL) > 0
    assert closed.net_fees_cents == closed.fees_collected_cents - closed.fees_returned_cents
    assert report.fees_collected_cents == closed.fees_collected_cents + open_down.fees_collected_cents
    assert (report.hands, report.misdeals) == (4, 1)


def test_filters_by_table_and_dealer(downs: dict[str, Any], users: dict[str, Any]) -> None:
    only = build_downs_report(_today(tables=(downs["second"].number,)))
    assert [line.table_number for line in only.lines] == [downs["second"].number]
    assert build_downs_report(_today(), dealer="dealer").lines
    assert build_downs_report(_today(), dealer="floor").lines == []
    with pytest.raises(ReportFilterError) as refused:
        build_downs_report(_today(), dealer="nobody-here")
    assert refused.value.errors == {"dealer": "there is no user 'nobody-here'"}


def test_the_page_and_its_csv(downs: dict[str, Any], users: dict[str, Any]) -> None:
    client = Client()
    client.force_login(users["auditor"])
    page = client.get(reverse("reports:downs"))
    assert page.status_code == 200
    shown = page.content.decode()
    assert "<strong>on the table</strong>" in shown
    assert f'href="{reverse("reports:downs")}"' in client.get(reverse("reports:index")).content.decode()
    download = client.get(reverse("reports:downs"), {"format": "csv"})
    assert download["Content-Type"].startswith("text/csv")
    header, *rows = [line.split(",") for line in download.content.decode().strip().split("\r\n")]
    assert header[-3:] == ["fees_collected_dollars", "fees_returned_dollars", "net_fees_dollars"]
    assert [row[header.index("clocked_out")] for row in rows][-1] == "on the table"
    bad = client.get(reverse("reports:downs"), {"dealer": "nobody-here"})
    assert bad.status_code == 400
    assert client.get(reverse("reports:downs"), {"format": "pdf"}).content.startswith(b"%PDF-")

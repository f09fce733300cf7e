"""The reports show a player's name as it was: a statement, the journal, the hand history, the
collection report's waivers and the cash-day report made after a rename show the old name on the
rows before it and the new name on the rows after; a merged record keeps its own names; a rename
doesn't change a closed shift's report; and the names cost one query per report, whatever the rows
and the renames."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from backoffice import closing
from backoffice.reports.cash_day import build_cash_day_report
from backoffice.reports.changes import build_change_log
from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilters
from backoffice.reports.hands import build_hand_history
from backoffice.reports.journal import build_journal
from backoffice.reports.statement import build_player_statement
from backoffice.waivers import fee_outstanding, waive_fee
from handflow import services as hand_flow
from ledger import services as ledger_services
from ledger.shifts import Shift, ShiftCode, room_zone
from tables import services
from tables.models import Player, Table
from tests.factories import ReportRoom, at_local

pytestmark = pytest.mark.django_db


def _today() -> dt.date:
    return timezone.localtime(timezone.now(), room_zone()).date()


@pytest.fixture
def renamed(room: ReportRoom, a_past_day: dt.date, staff: dict[str, Any]) -> dict[str, Any]:
    """Ann Lee plays a past day's hands (one fee waived; the shift closed) and buys in today; then
    she is renamed Ann Soto, plays a hand and rebuys."""
    table = room.table(95, schedule=room.limit_schedule())
    ann, ben = room.seat(table, ["Ann Lee", "Ben"])
    played = room.hand(table, [ann, ben], at=at_local(a_past_day, 10))
    room.settle(played, [(ben, ann, 500)])
    waived = room.hand(table, [ann, ben], at=at_local(a_past_day, 11), collect=False)
    waive_fee(
        hand=waived,
        player=ann,
        amount_cents=fee_outstanding(hand=waived, player=ann),
        reason="promotion",
        by=staff["manager"],
    )
    close = closing.close_shift(shift=Shift(a_past_day, ShiftCode.DAY)).close
    renamed_at = timezone.now()
    services.update_player(player=ann, name="Ann Soto", by=staff["floor"])
    later = room.hand(table, [ben, ann], at=timezone.now())
    room.settle(later, [(ann, ben, 300)])
    ledger_services.rebuy(table=table, player=ann, amount=2_000, user=room.user, idempotency_key="ann-rebuy")
    ann.refresh_from_db()
    return {
        "ann": ann,
        "ben": ben,
        "played": played,
        "waived": waived,
        "later": later,
        "close": close,
        "renamed_at": renamed_at,
        "period": ReportFilters(date_from=a_past_day, date_to=_today()),
    }


def test_a_statement_shows_the_old_name_before_the_rename_and_the_new_one_after(
    renamed: dict[str, Any],
) -> None:
    statement = build_player_statement(renamed["ann"], renamed["period"])
    assert (statement.player, statement.names) == ("Ann Soto", ["Ann Lee", "Ann Soto"])
    cut = renamed["renamed_at"]
    assert [(line.kind, line.player) for line in statement.lines if line.at < cut] == [
        ("buy_in", "Ann Lee"),
        ("fee", "Ann Lee"),
        ("settlement_payment", "Ann Lee"),
    ]
    assert [(line.kind, line.player) for line in statement.lines if line.at > cut] == [
        ("settlement_payment", "Ann Soto"),
        ("rebuy", "Ann Soto"),
    ]


def test_the_journal_names_the_chips_as_they_were(renamed: dict[str, Any]) -> None:
    journal = build_journal(renamed["period"], limit=500)
    cut = renamed["renamed_at"]
    ann_chips = [
        (txn.at < cut, entry.account)
        for txn in journal.transactions
        for entry in txn.entries
        if entry.account.startswith("chips: Ann")
    ]
    assert {label for before, label in ann_chips if before} == {"chips: Ann Lee @ table 95"}
    assert {label for before, label in ann_chips if not before} == {"chips: Ann Soto @ table 95"}


def test_the_hand_history_names_the_players_as_they_were_at_each_hand(renamed: dict[str, Any]) -> None:
    hands = {hand.hand_id: hand for hand in build_hand_history(renamed["period"]).hands}
    played, later = hands[renamed["played"].pk], hands[renamed["later"].pk]
    assert played.button_player == "Ann Lee"
    assert [p.player for p in played.players] == ["Ann Lee", "Ben"]
    assert {p.player for p in played.payments if p.player.startswith("Ann")} == {"Ann Lee"}
    assert "chips of Ann Lee" in {p.account for p in played.payments}
    assert [p.player for p in later.players] == ["Ben", "Ann Soto"]
    assert {p.player for p in later.payments if p.player.startswith("Ann")} == {"Ann Soto"}


def test_a_waiver_keeps_the_name_and_the_closed_shift_still_matches(
    renamed: dict[str, Any], a_past_day: dt.date
) -> None:
    report = build_collection_report(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    assert [(w.hand_id, w.player) for w in report.waivers] == [(renamed["waived"].pk, "Ann Lee")]
    # The shift was closed before the rename: its report made now is the one frozen then.
    assert closing.frozen_matches_live(renamed["close"])


def test_a_merged_record_keeps_its_own_names(renamed: dict[str, Any], room: ReportRoom) -> None:
    table = Table.objects.get(number=95)
    dup = services.create_player(name="A. Lee")
    ledger_services.buy_in(table=table, player=dup, amount=1_000, user=room.user, idempotency_key="dup-in")
    services.update_player(player=dup, name="Ann L.")
    ledger_services.rebuy(table=table, player=dup, amount=1_000, user=room.user, idempotency_key="dup-re")
    services.merge_players(survivor=renamed["ann"], merged=dup, by=None, reason="same person")
    dup_statement = build_player_statement(Player.objects.get(pk=dup.pk), renamed["period"])
    assert [line.player for line in dup_statement.lines] == ["A. Lee", "Ann L."]
    ann_statement = build_player_statement(renamed["ann"], renamed["period"])
    assert ann_statement.names == ["Ann Lee", "Ann Soto"]


def test_the_cash_day_report_names_each_transaction_as_it_was(
    make_table: Callable[..., Table], users: dict[str, Any]
) -> None:
    table = make_table(number=41, stakes="nl-200-nomax")
    ann = services.create_player(name="Ann Lee")
    hand_flow.buy_in(
        table=table, player=ann, amount_cents=400_000, seat_number=1, by=users["floor"], idempotency_key="a1"
    )
    services.update_player(player=ann, name="Ann Soto")
    hand_flow.rebuy(table=table, player=ann, amount_cents=400_000, by=users["floor"], idempotency_key="a2")
    report = build_cash_day_report(services.gaming_day())
    assert [(line.name, line.amount_cents) for line in report.log] == [
        ("Ann Lee", 400_000),
        ("Ann Soto", 400_000),
    ]
    assert [(day.name, day.in_cents) for day in report.players] == [("Ann Soto", 800_000)]


def test_the_names_cost_one_query_whatever_the_rows_and_renames(
    renamed: dict[str, Any], room: ReportRoom
) -> None:
    period, ann, ben = renamed["period"], renamed["ann"], renamed["ben"]

    def queries() -> list[int]:
        counts = []
        for build in (
            lambda: build_player_statement(Player.objects.get(pk=ann.pk), period),
            lambda: build_journal(period, limit=500),
            lambda: build_hand_history(period),
        ):
            with CaptureQueriesContext(connection) as captured:
                build()
            counts.append(len(captured))
        return counts

    first = queries()
    table = Table.objects.get(number=95)
    for round_ in range(3):
        services.update_player(player=ann, name=f"Ann {round_}")
        services.update_player(player=ben, name=f"Ben {round_}")
        hand = room.hand(table, [ann, ben], at=timezone.now())
        room.settle(hand, [(ben, ann, 100)])
    assert queries() == first


def test_the_statement_page_says_the_names_of_the_period(
    renamed: dict[str, Any], staff: dict[str, Any], a_past_day: dt.date
) -> None:
    client = Client()
    client.force_login(staff["auditor"])
    page = client.get(
        f"/reports/players/{renamed['ann'].pk}/", {"date_from": a_past_day.isoformat(), "date_to": _today()}
    )
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert "Player statement: Ann Soto" in text
    assert "Renamed in this period: Ann Lee, then Ann Soto" in text
    assert text.count("<td>Ann Lee</td>") == 3
    assert text.count("<td>Ann Soto</td>") == 2


def test_the_change_log_tells_every_change_to_a_player_in_words(staff: dict[str, Any]) -> None:
    ana = services.create_player(name="Ana Ruiz", member_number="M-7731", by=staff["floor"])
    services.update_player(
        player=ana, name="Ana Soto", phone="530 892 2282", by=staff["floor"], reason="married"
    )
    typo = services.create_player(name="Zed", by=staff["floor"])
    services.delete_player(player=typo, by=staff["floor"], reason="typed twice")
    day = _today()
    lines = [
        (line.who, line.action, line.subject, line.what, line.reason)
        for line in build_change_log(ReportFilters(date_from=day, date_to=day)).lines
        if line.subject.startswith("Player ")
    ]
    assert lines == [
        ("floor", "Deleted", f"Player Zed (player {typo.pk})", "Deleted", "typed twice"),
        ("floor", "Created", f"Player Zed (player {typo.pk})", "Name Zed", ""),
        (
            "floor",
            "Changed",
            f"Player Ana Soto (player {ana.pk})",
            "Name: Ana Ruiz -> Ana Soto; Phone: none -> ending 82",
            "married",
        ),
        (
            "floor",
            "Created",
            f"Player Ana Ruiz (player {ana.pk})",
            "Name Ana Ruiz; Member number ending 31",
            "",
        ),
    ]

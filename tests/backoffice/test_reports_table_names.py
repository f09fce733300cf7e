"""Every record names a table by its number, as the room does (issue #32): the change log told a
must-move table's creation as "Table #10 / Waiting list dealer" (the table's database id, and the
waiting list's id looked up among the users), and the integrity report's export listed the ledger's
chains by the tables' database ids alone ("table:8" is table 7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from backoffice.books import check_hands
from backoffice.exports.layouts.integrity import integrity_sections
from backoffice.reports.changes import build_change_log
from backoffice.reports.common import ReportFilters
from backoffice.reports.integrity import build_integrity_report
from ledger.shifts import room_zone
from tables.lists import services as lists
from tables.models import Game, Stakes, Table
from tests.factories import ReportRoom
from tests.ledger.forgery import sql, triggers_off

pytestmark = pytest.mark.django_db


def _today() -> ReportFilters:
    today = timezone.localtime(timezone.now(), room_zone()).date()
    return ReportFilters(date_from=today, date_to=today)


def test_the_change_log_names_a_must_move_table_by_its_number_and_its_list_by_its_game(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    """The floor's case: tables 5, 7 and 11 (ids 1, 2, 3); table 11 made a must-move table of the
    hold'em list (id 1, as the dealer's user id)."""
    floor = users["floor"]
    make_table(number=5)
    make_table(number=7)
    must = make_table(number=11)
    assert must.pk != 11
    holdem = lists.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )
    lists.set_must_move(table=must, waiting_list=holdem, by=floor, reason="main game is full")
    line = next(line for line in build_change_log(_today()).lines if line.subject.startswith("Must move"))
    assert line.items == ["Table 11", f"Waiting list {holdem.label}"]
    assert "#" not in line.what
    assert "dealer" not in line.what


def test_the_integrity_export_names_each_chain_s_table_by_its_number(room: ReportRoom) -> None:
    table = room.table(111, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    room.hand(table, players, at=timezone.now())
    assert table.pk != 111
    sections = {section.title: section for section in integrity_sections(build_integrity_report())}
    chains = sections["Ledger chains by table"]
    assert list(chains.headers) == ["chain", "table"]
    assert [f"table:{table.pk}", "Table 111"] in [list(row) for row in chains.rows]


@pytest.mark.tamper
def test_a_hand_s_problem_names_its_table_by_number(room: ReportRoom) -> None:
    """The books' hand checks wrote "hand 1 (table 1 hand #1)": the table's database id."""
    table = room.table(111, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    hand = room.hand(table, players, at=timezone.now())
    assert table.pk != 111
    with triggers_off():
        sql("UPDATE tables_handplayer SET fee_cents = COALESCE(fee_cents, 0) + %s", [100])
    _, problems = check_hands()
    assert problems
    assert all(f"hand {hand.pk} (table 111 hand #{hand.number})" in p.message for p in problems)

"""Management commands: load_house_data, load_demo_floor (both idempotent; the demo floor only in
development or when asked for by name), and the API schema."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from handflow import services as hand_flow
from tables import services as tables_services
from tables.models import (
    ChipMovement,
    CollectionSchedule,
    ConfigChange,
    Game,
    Player,
    Seating,
    Stakes,
    Table,
    TableStatus,
)


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_load_house_data_twice(house: None) -> None:
    counts = (Game.objects.count(), Stakes.objects.count(), ConfigChange.objects.count())
    assert "nothing loaded" in run("load_house_data")
    assert counts == (Game.objects.count(), Stakes.objects.count(), ConfigChange.objects.count())


def test_load_house_data_bad_file(db: None, tmp_path: object) -> None:
    with pytest.raises(CommandError, match="can't read"):
        call_command("load_house_data", "--file", "/nonexistent/house.json")


def test_load_demo_floor_is_idempotent(house: None, settings: Any) -> None:
    settings.DEBUG = True  # `make run`: the development settings
    first = run("load_demo_floor")
    passwords = re.findall(r"Created user (\w+) \([^)]*\) with password: (\S+)", first)
    assert [name for name, _ in passwords] == ["dealer", "floor", "auditor"]
    user_model = get_user_model()
    for name, password in passwords:
        assert user_model.objects.get(username=name).check_password(password)
    assert {u.username: [g.name for g in u.groups.all()] for u in user_model.objects.all()} == {
        "dealer": ["Dealer"],
        "floor": ["Floor manager"],
        "auditor": ["Auditor"],
    }
    tables = {t.number: t for t in Table.objects.select_related("game", "stakes", "collection_schedule")}
    assert {n: (t.game.slug, t.stakes.code, t.collection_schedule.code) for n, t in tables.items()} == {
        1: ("holdem", "limit-4-8-half", "A"),
        2: ("holdem", "nl-100-500", "B"),
        3: ("omaha-hi-lo", "limit-6-12", "C"),
        4: ("chinese-poker", "points-5", "CP2"),
        5: ("taiwanese-poker", "points-2", "CP1"),
    }
    assert all(t.status == TableStatus.OPEN for t in tables.values())
    state = (
        Player.objects.count(),
        Seating.objects.count(),
        Table.objects.count(),
        ConfigChange.objects.count(),
    )
    assert Seating.objects.active().filter(table__number=4).count() == 5

    second = run("load_demo_floor")
    assert "password:" not in second
    assert second.count("already exists") == 3 + 5
    assert state == (
        Player.objects.count(),
        Seating.objects.count(),
        Table.objects.count(),
        ConfigChange.objects.count(),
    )


def test_load_demo_floor_is_refused_in_production(house: None, settings: Any) -> None:
    """DEBUG off (production, the default): no staff users with printed passwords, no open tables, no
    buy-ins, unless the demo is asked for by name."""
    settings.DEBUG = False
    user_model = get_user_model()
    users, tables, seatings = user_model.objects.count(), Table.objects.count(), Seating.objects.count()
    with pytest.raises(CommandError, match=r"DEBUG is off .*load_demo_floor --demo"):
        run("load_demo_floor")
    assert (user_model.objects.count(), Table.objects.count(), Seating.objects.count()) == (
        users,
        tables,
        seatings,
    )
    out = run("load_demo_floor", "--demo")
    assert re.search(r"Created user dealer \(Dealer\) with password: \S+", out)
    assert Table.objects.filter(status=TableStatus.OPEN).count() == 5


def test_load_demo_floor_needs_house_data(db: None) -> None:
    Stakes.objects.all().delete()
    Game.objects.all().delete()
    with pytest.raises(CommandError, match="load_house_data"):
        call_command("load_demo_floor", "--demo", stdout=io.StringIO())


def test_openapi_schema_validates_without_warnings(db: None) -> None:
    # spectacular exits non-zero (SystemExit/CommandError) on any warning with --fail-on-warn.
    out = run("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json")
    assert '"/api/terminal/tables/{number}/hands/"' in out
    # The floor's fee-less start and status moves are gone (a hand is dealt only with its fees).
    assert '"/api/hands/start/"' not in out
    assert '"/api/hands/{id}/status/"' not in out
    assert '"/api/hands/{id}/void/"' in out
    assert '"/api/seatings/{id}/move/"' in out


def test_migrations_are_in_sync(db: None) -> None:
    call_command("makemigrations", "tables", "--check", "--dry-run", stdout=io.StringIO())


def test_running_the_set_up_again_changes_nothing_the_floor_changed(
    house: None, settings: Any, users: dict[str, Any]
) -> None:
    """``make run`` twice: the floor closed table 3 and cashed out a demo player in between; the
    second run re-opened table 3 and printed "1 seated and bought in now" with nothing changed."""
    settings.DEBUG = True
    run("load_demo_floor")
    floor = users["floor"]
    table_3 = Table.objects.get(number=3)
    tables_services.close_table(table=table_3, by=floor, reason="no dealer tonight")
    ana = Player.objects.get(member_number="D-1001")
    hand_flow.cash_out(
        table=Table.objects.get(number=1), player=ana, by=floor, idempotency_key="test:ana-out"
    )
    dealer = get_user_model().objects.get(username="dealer")
    dealer.groups.clear()  # the floor took the demo dealer off the rota
    state = (Seating.objects.count(), ConfigChange.objects.count(), ChipMovement.objects.count())

    again = run("load_demo_floor")

    table_3.refresh_from_db()
    assert table_3.status == TableStatus.CLOSED
    assert "Table 3 already exists (closed); left as it is." in again
    assert not Seating.objects.active().filter(player=ana).exists()
    assert "nobody seated or bought in now" in again
    assert "seated and bought in now." not in again.replace("nobody seated or bought in now", "")
    assert not dealer.groups.exists()
    assert state == (Seating.objects.count(), ConfigChange.objects.count(), ChipMovement.objects.count())


def test_loading_the_house_data_again_keeps_the_floors_schedule_and_says_so(
    house: None, users: dict[str, Any]
) -> None:
    schedule = CollectionSchedule.objects.get(code="A")
    latest = schedule.versions.order_by("-effective_from").first()
    assert latest is not None
    rates = [
        {name: getattr(r, name) for name in tables_services.RATE_FIELDS} for r in latest.rates.order_by("pk")
    ]
    rates[0]["fee_cents"] += 100
    floor_version = tables_services.revise_schedule(
        schedule=schedule, rates=rates, by=users["floor"], reason="the floor's new fee"
    )

    out = run("load_house_data")

    assert "schedule A: changed on the floor since the last load; left as it is." in out
    assert "nothing loaded" in out
    assert schedule.versions.order_by("-effective_from", "-number").first() == floor_version

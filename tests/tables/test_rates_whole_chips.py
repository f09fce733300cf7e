"""Fees in whole chips of the table, and every amount a real integer, wherever a rate is written.

A $1.50 fee was accepted at a $1-chip table and offered to the dealer (while a put-in of $8.50 is
refused). A schedule is shared by tables with chips of their own, so a rate that applies to a
table must be whole chips of *that* table: checked when a version is added (every table on the
schedule) and when a table is created, reconfigured, or changes stakes or schedule. And
``fee_cents=2.5`` reached the database, ``"5%"`` raised a TypeError: now both are refused naming
the field. One rule (``tables.validators``) for the service, the admin, the page and the API.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tables import errors, services, validators
from tables.models import CollectionRate, CollectionSchedule, Stakes, Table
from tables.services import RATE_FIELDS

MakeTable = Callable[..., Table]

LIMIT_4_8 = {"structure": "limit", "small_bet_cents": 400, "big_bet_cents": 800, "payer": "button"}
LIMIT_2_4 = {"structure": "limit", "small_bet_cents": 200, "big_bet_cents": 400, "payer": "button"}


def limit_schedule(code: str, fees: tuple[int, int, int] = (100, 200, 300)) -> CollectionSchedule:
    """A schedule for $4-$8 limit only, bands 1-4, 5-6, 7-10, button pays."""
    bands = ((1, 4), (5, 6), (7, 10))
    return services.create_schedule(
        code=code,
        name=f"Test {code}",
        by=None,
        rates=[
            {**LIMIT_4_8, "players_min": low, "players_max": high, "fee_cents": fee}
            for (low, high), fee in zip(bands, fees, strict=True)
        ],
    )


def latest_rows(schedule: CollectionSchedule) -> list[dict[str, Any]]:
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    return [{name: getattr(rate, name) for name in RATE_FIELDS} for rate in latest.rates.order_by("pk")]


def index_of(rows: list[dict[str, Any]], **match: Any) -> int:
    return next(i for i, row in enumerate(rows) if all(row[k] == v for k, v in match.items()))


def versions(schedule: CollectionSchedule) -> int:
    return schedule.versions.count()


# --- A new version against every table on the schedule ----------------------------------------------


def test_a_fee_of_half_a_chip_is_refused_at_a_one_dollar_table(make_table: MakeTable) -> None:
    table = make_table(stakes="limit-4-8", schedule="A")  # $1 chips
    schedule = table.collection_schedule
    rows = latest_rows(schedule)
    i = index_of(rows, structure="limit", small_bet_cents=400, big_bet_cents=800, players_min=1)
    rows[i]["fee_cents"] = 150
    count = versions(schedule)
    with pytest.raises(errors.InvalidSchedule) as refused:
        services.revise_schedule(schedule=schedule, rates=rows, by=None, reason="a $1.50 fee")
    assert refused.value.field == f"rates[{i}].fee_cents"
    assert f"is not a whole number of table {table.number}'s $1 chips" in refused.value.message
    assert "$1.50" in refused.value.message
    assert versions(schedule) == count


def test_the_same_fee_is_whole_chips_at_a_quarter_table(make_table: MakeTable) -> None:
    schedule = limit_schedule("Q")
    make_table(stakes="limit-4-8", schedule="Q", chip_unit_cents=25)
    rows = latest_rows(schedule)
    rows[0]["fee_cents"] = 150  # six 25-cent chips
    version = services.revise_schedule(schedule=schedule, rates=rows, by=None, reason="$1.50")
    assert version.rates.order_by("pk")[0].fee_cents == 150
    # ...and now a $1-chip table can't join the schedule: the fee in force isn't its chips.
    with pytest.raises(
        errors.ConfigMismatch, match=r"\$1.50 .* not a whole number of the table's \$1 chips"
    ) as no:
        make_table(stakes="limit-4-8", schedule="Q")
    assert no.value.field == "collection_schedule"


def test_a_rate_that_applies_to_no_table_is_not_held_to_its_chips(make_table: MakeTable) -> None:
    # $1.50 at $2-$4 is fine while every table on schedule A plays other stakes.
    make_table(stakes="limit-4-8", schedule="A")
    schedule = CollectionSchedule.objects.get(code="A")
    rows = latest_rows(schedule)
    i = index_of(rows, structure="limit", small_bet_cents=200, big_bet_cents=400, alt_big_bet_cents=None)
    rows[i]["fee_cents"] = 150
    services.revise_schedule(schedule=schedule, rates=rows, by=None, reason="$2-$4 only")
    assert versions(schedule) == 2


def test_the_others_fee_is_held_to_the_chips_too(make_table: MakeTable) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")  # $1 chips
    rows = latest_rows(table.collection_schedule)
    rows[0]["others_fee_cents"] = 50
    with pytest.raises(errors.InvalidSchedule) as refused:
        services.revise_schedule(schedule=table.collection_schedule, rates=rows, by=None, reason="50 cents")
    assert refused.value.field == "rates[0].others_fee_cents"
    assert versions(table.collection_schedule) == 1


# --- The table's side: created, reconfigured, new stakes or schedule, opened --------------------------


def test_a_table_with_chips_larger_than_the_fees_is_refused(make_table: MakeTable) -> None:
    before = Table.objects.count()
    # Schedule A charges $1, $2, $3 at $4-$8: not whole $5 chips.
    with pytest.raises(errors.ConfigMismatch, match=r"The fee \$1 .* \$5 chips") as refused:
        make_table(stakes="limit-4-8", schedule="A", chip_unit_cents=500)
    assert refused.value.field == "collection_schedule"
    assert Table.objects.count() == before


def test_reconfiguring_chips_stakes_or_schedule_is_checked(make_table: MakeTable) -> None:
    # Q2: $2-$4 at $1, $4-$8 at $1.50 / $2.50 / $3.50 (whole 50-cent chips, not dollars).
    q2 = services.create_schedule(
        code="Q2",
        name="Half dollars at $4-$8",
        by=None,
        rates=[
            {**LIMIT_2_4, "players_min": 1, "players_max": 10, "fee_cents": 100},
            *[
                {**LIMIT_4_8, "players_min": low, "players_max": high, "fee_cents": fee}
                for low, high, fee in ((1, 4, 150), (5, 6, 250), (7, 10, 350))
            ],
        ],
    )
    halves = make_table(stakes="limit-4-8", schedule="Q2", chip_unit_cents=50)
    with pytest.raises(errors.ConfigMismatch, match=r"not a whole number of the table's \$1 chips"):
        services.configure_table(table=halves, by=None, reason="dollar chips", chip_unit_cents=100)
    dollars = make_table(stakes="limit-4-8", schedule="A")
    with pytest.raises(errors.ConfigMismatch, match=r"\$1.50 .* the table's \$1 chips"):
        services.configure_table(table=dollars, collection_schedule=q2, by=None, reason="to Q2")
    small = make_table(stakes="limit-2-4", schedule="Q2")  # $1 at $2-$4: whole dollars
    with pytest.raises(errors.ConfigMismatch, match=r"the table's \$1 chips"):
        services.configure_table(
            table=small, stakes=Stakes.objects.get(code="limit-4-8"), by=None, reason="up"
        )
    for table, expected in ((halves, (50, "Q2", "limit-4-8")), (dollars, (100, "A", "limit-4-8"))):
        table.refresh_from_db()
        assert (table.chip_unit_cents, table.collection_schedule.code, table.stakes.code) == expected
    small.refresh_from_db()
    assert small.stakes.code == "limit-2-4"


def test_a_version_taking_effect_later_is_checked_too(make_table: MakeTable) -> None:
    schedule = limit_schedule("Q3")
    quarter = make_table(stakes="limit-4-8", schedule="Q3", chip_unit_cents=25, open=False)
    rows = latest_rows(schedule)
    rows[0]["fee_cents"] = 125
    later = timezone.now() + datetime.timedelta(days=1)
    services.revise_schedule(schedule=schedule, rates=rows, by=None, reason="tomorrow", effective_from=later)
    with pytest.raises(errors.ConfigMismatch, match=r"Q3 v2: The fee \$1.25"):
        services.configure_table(table=quarter, by=None, reason="dollar chips", chip_unit_cents=100)


# --- Every amount a real integer ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("fee_cents", 2.5),
        ("fee_cents", 2.0),
        ("fee_cents", "5%"),
        ("fee_cents", "150"),
        ("fee_cents", True),
        ("fee_cents", [100]),
        ("others_fee_cents", 0.5),
        ("players_min", "1"),
        ("small_bet_cents", 400.0),
    ],
)
def test_amounts_must_be_integers(house: None, field: str, value: Any) -> None:
    row = {**LIMIT_4_8, "players_min": 1, "players_max": 10, "fee_cents": 100}
    if field == "others_fee_cents":
        row["payer"] = "button_and_others"
    row[field] = value
    with pytest.raises(errors.InvalidSchedule) as refused:
        services.create_schedule(code="T", name="t", by=None, rates=[row])
    assert refused.value.field == f"rates[0].{field}"
    assert "whole number" in refused.value.errors[f"rates[0].{field}"]
    assert repr(value) in refused.value.message
    assert not CollectionSchedule.objects.filter(code="T").exists()


def test_a_fee_too_large_for_its_column_is_refused_not_overflowed(
    client_for: Callable[[str | None], APIClient], house: None
) -> None:
    row = {**LIMIT_4_8, "players_min": 1, "players_max": 10, "fee_cents": 2**63}
    with pytest.raises(errors.InvalidSchedule, match="too large") as refused:
        services.create_schedule(code="T", name="t", by=None, rates=[row])
    assert refused.value.field == "rates[0].fee_cents"
    response = client_for("floor").post(
        "/api/schedules/", {"code": "T", "name": "t", "rates": [row]}, format="json"
    )
    assert response.status_code == 400
    assert not CollectionSchedule.objects.filter(code="T").exists()


def test_a_float_fee_never_reaches_the_database_on_revise(make_table: MakeTable) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    rows = latest_rows(table.collection_schedule)
    rows[0]["fee_cents"] = 2.5
    with pytest.raises(errors.InvalidSchedule, match=r"rates\[0\].fee_cents: Must be a whole number"):
        services.revise_schedule(schedule=table.collection_schedule, rates=rows, by=None, reason="x")
    assert versions(table.collection_schedule) == 1


@pytest.mark.parametrize(
    ("rates", "field"),
    [
        ("100", "rates"),
        ({"fee_cents": 100}, "rates"),
        (None, "rates"),
        ([None], "rates[0]"),
        (["fee 100"], "rates[0]"),
        ([{**LIMIT_4_8, "players_min": 1, "players_max": 10, "fee_cents": 100, 7: "x"}], "rates[0]"),
    ],
)
def test_rates_of_the_wrong_shape_are_refused(house: None, rates: Any, field: str) -> None:
    with pytest.raises(errors.InvalidSchedule) as refused:
        services.create_schedule(code="T", name="t", by=None, rates=rates)
    assert refused.value.field == field
    assert not CollectionSchedule.objects.filter(code="T").exists()


def test_the_rule_lives_in_the_validators() -> None:
    # What the admin's rate form (CollectionRate.clean) and the services both call.
    rate = CollectionRate(**{**LIMIT_4_8, "players_min": 1, "players_max": 4, "fee_cents": "5%"})
    assert validators.rate_problems(rate) == {"fee_cents": "Must be a whole number (an integer), not '5%'."}
    ok = CollectionRate(**{**LIMIT_4_8, "players_min": 1, "players_max": 4, "fee_cents": 150})
    assert validators.fee_chip_problems(ok, chip_unit_cents=25, where="table 1") == {}
    assert set(validators.fee_chip_problems(ok, chip_unit_cents=100, where="table 1")) == {"fee_cents"}


# --- The API, the admin and the page ---------------------------------------------------------------------


def api_rate(**overrides: Any) -> dict[str, Any]:
    return {**LIMIT_4_8, "players_min": 1, "players_max": 10, "fee_cents": 100, **overrides}


@pytest.mark.parametrize("fee", [2.5, "5%", "150", True, 150.0])
def test_the_api_refuses_a_fee_that_is_not_an_integer(
    client_for: Callable[[str | None], APIClient], house: None, fee: Any
) -> None:
    response = client_for("floor").post(
        "/api/schedules/", {"code": "T", "name": "t", "rates": [api_rate(fee_cents=fee)]}, format="json"
    )
    assert response.status_code == 400, response.json()
    body = response.json()  # the documented error body, the field named as the domain names it
    assert (body["code"], body["field"]) == ("invalid", "rates[0].fee_cents")
    assert "whole number" in body["errors"]["rates[0].fee_cents"]
    assert not CollectionSchedule.objects.filter(code="T").exists()


def test_the_api_refuses_half_a_chip(
    client_for: Callable[[str | None], APIClient], make_table: MakeTable
) -> None:
    table = make_table(stakes="limit-4-8", schedule="A")
    rows = latest_rows(table.collection_schedule)
    i = index_of(rows, structure="limit", small_bet_cents=400, big_bet_cents=800, players_min=5)
    rows[i]["fee_cents"] = 250
    body = {"reason": "r", "rates": [{k: v for k, v in row.items() if v is not None} for row in rows]}
    response = client_for("floor").post("/api/schedules/A/revise/", body, format="json")
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (
        "invalid_schedule",
        f"rates[{i}].fee_cents",
    )
    assert f"table {table.number}'s $1 chips" in response.json()["detail"]
    assert versions(table.collection_schedule) == 1


def test_the_admin_refuses_half_a_chip(users: dict[str, Any], make_table: MakeTable) -> None:
    schedule = limit_schedule("QA")
    make_table(stakes="limit-4-8", schedule="QA")
    rows = [
        {**LIMIT_4_8, "players_min": 1, "players_max": 4, "fee_cents": 150},
        {**LIMIT_4_8, "players_min": 5, "players_max": 10, "fee_cents": 200},
    ]
    data: dict[str, Any] = {
        "schedule": schedule.pk,
        "effective_from_0": "2099-01-01",
        "effective_from_1": "00:00:00",
        "reason": "new fees",
        "rates-TOTAL_FORMS": len(rows),
        "rates-INITIAL_FORMS": 0,
    }
    for n, row in enumerate(rows):
        for key, value in row.items():
            data[f"rates-{n}-{key}"] = value
    client = Client()
    client.force_login(users["admin"])
    response = client.post("/admin/tables/collectionscheduleversion/add/", data)
    assert response.status_code == 200
    assert "$1.50" in response.content.decode()
    assert "$1 chips" in response.content.decode()
    assert versions(schedule) == 1


def test_the_schedule_page_refuses_half_a_chip(users: dict[str, Any], make_table: MakeTable) -> None:
    table = make_table(stakes="limit-4-8", schedule="A")
    schedule = table.collection_schedule
    rates = list(schedule.versions.get().rates.order_by("pk"))
    i = next(
        n
        for n, r in enumerate(rates)
        if (r.structure, r.small_bet_cents, r.big_bet_cents, r.players_min) == ("limit", 400, 800, 1)
    )
    form = {f"fee_{n}": str(r.fee_cents // 100) for n, r in enumerate(rates)}
    client = Client()
    client.force_login(users["floor"])
    for step in ("preview", "save"):
        response = client.post(
            "/floor/schedules/A/", form | {f"fee_{i}": "1.50", "reason": "half a chip", "step": step}
        )
        assert response.status_code == 400
        assert f"not a whole number of table {table.number}&#x27;s $1 chips" in response.content.decode()
    assert versions(schedule) == 1

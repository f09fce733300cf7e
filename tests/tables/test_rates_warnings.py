"""A fee far outside the schedule's sense: a warning to confirm, with a preview of the change.

"Far outside" is one pure function, :func:`tables.validators.fee_warnings`: a fee above a quarter
of the smallest minimum buy-in its rate covers (docs/floor.md says why). The schedule page shows
what a new version changes (each table on the schedule, the bands of players, old fee -> new
fee) before it saves, and saves a warned fee only with its confirm box ticked; the admin asks
the same; the API accepts such a fee and returns the warnings with the new version.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tables import services
from tables.models import CollectionRate, CollectionSchedule, Table
from tables.services import RATE_FIELDS
from tables.validators import fee_warnings, rates_fee_warnings

MakeTable = Callable[..., Table]


def rate(**fields: Any) -> CollectionRate:
    return CollectionRate(**{"payer": "button", "players_min": 1, "players_max": 4, **fields})


def limit(small: int, big: int, fee: int, **more: Any) -> CollectionRate:
    return rate(structure="limit", small_bet_cents=small, big_bet_cents=big, fee_cents=fee, **more)


# --- The rule ------------------------------------------------------------------------------------------


def test_a_200_dollar_fee_on_4_8_limit_is_far_outside(db: None, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):  # pure: no query
        warnings = fee_warnings(limit(400, 800, 20_000))
    assert set(warnings) == {"fee_cents"}
    assert "$200 from the button at $4-$8" in warnings["fee_cents"]
    assert "minimum buy-in ($80)" in warnings["fee_cents"]


@pytest.mark.parametrize(
    ("rate_", "warned"),
    [
        # Limit: the minimum buy-in is 10 big bets ($80 at $4-$8); a quarter is $20.
        (limit(400, 800, 2_000), set()),
        (limit(400, 800, 2_100), {"fee_cents"}),
        # A second limit pair: its larger big bet ($8 at $2-$4/$2-$8).
        (limit(200, 400, 2_000, alt_small_bet_cents=200, alt_big_bet_cents=800), set()),
        (limit(200, 400, 1_100), {"fee_cents"}),  # $40 minimum: a quarter is $10
        # No limit / pot limit: the bottom of the buy-in range ($20): a quarter is $5.
        (rate(structure="nl_pl", buy_in_min_cents=2_000, buy_in_max_cents=10_000, fee_cents=500), set()),
        (rate(structure="nl_pl", buy_in_min_cents=2_000, fee_cents=600), {"fee_cents"}),
        # Points: 20 points at the smallest point the row covers ($1): a quarter is $5.
        (rate(structure="points", point_min_cents=100, point_max_cents=10_000, fee_cents=500), set()),
        (
            rate(
                structure="points",
                point_min_cents=100,
                point_max_cents=10_000,
                payer="button_and_others",
                fee_cents=300,
                others_fee_cents=600,
            ),
            {"others_fee_cents"},
        ),
        (
            rate(
                structure="points",
                point_min_cents=100,
                point_max_cents=10_000,
                payer="each_player",
                fee_cents=700,
            ),
            {"fee_cents"},
        ),
    ],
)
def test_the_threshold_is_a_quarter_of_the_minimum_buy_in(rate_: CollectionRate, warned: set[str]) -> None:
    assert set(fee_warnings(rate_)) == warned


def test_a_row_that_is_wrong_in_itself_has_no_warning_only_its_problems() -> None:
    assert fee_warnings(limit(400, 800, "5%")) == {}  # type: ignore[arg-type]


def test_no_fee_004_prints_is_far_outside(house: None) -> None:
    # Schedule C's $5 at $20-$100 no limit (7-10 players) is the largest: exactly a quarter of $20;
    # and its $5 at $2-$4 limit is 1.25 big bets, which a "more than the big bet" rule would flag.
    for schedule in CollectionSchedule.objects.all():
        version = schedule.version_at()
        assert version is not None
        assert rates_fee_warnings(list(version.rates.all())) == {}, schedule.code


# --- The API: accepted, with the warnings in the response ---------------------------------------------


def latest_rows(schedule: CollectionSchedule) -> list[dict[str, Any]]:
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    return [{name: getattr(r, name) for name in RATE_FIELDS} for r in latest.rates.order_by("pk")]


def index_4_8(rows: list[dict[str, Any]], players_min: int = 1) -> int:
    return next(
        i
        for i, row in enumerate(rows)
        if (row["structure"], row["small_bet_cents"], row["big_bet_cents"], row["players_min"])
        == ("limit", 400, 800, players_min)
    )


def test_the_api_accepts_the_fee_and_returns_the_warnings(
    client_for: Callable[[str | None], APIClient], make_table: MakeTable
) -> None:
    make_table(stakes="limit-4-8", schedule="A")
    rows = latest_rows(CollectionSchedule.objects.get(code="A"))
    i = index_4_8(rows)
    rows[i]["fee_cents"] = 20_000
    body = {"reason": "typo?", "rates": [{k: v for k, v in row.items() if v is not None} for row in rows]}
    response = client_for("floor").post("/api/schedules/A/revise/", body, format="json")
    assert response.status_code == 201, response.json()
    assert list(response.json()["warnings"]) == [f"rates[{i}].fee_cents"]
    assert "$200 from the button" in response.json()["warnings"][f"rates[{i}].fee_cents"]
    assert CollectionSchedule.objects.get(code="A").versions.count() == 2
    # A sensible change has none.
    rows[i]["fee_cents"] = 200
    body = {"reason": "fixed", "rates": [{k: v for k, v in row.items() if v is not None} for row in rows]}
    fixed = client_for("floor").post("/api/schedules/A/revise/", body, format="json")
    assert (fixed.status_code, fixed.json()["warnings"]) == (201, {})


def test_the_api_create_returns_the_warnings(
    client_for: Callable[[str | None], APIClient], house: None
) -> None:
    body = {
        "code": "W",
        "name": "w",
        "rates": [
            {
                "structure": "nl_pl",
                "buy_in_min_cents": 2_000,
                "players_min": 1,
                "players_max": 10,
                "fee_cents": 600,
            }
        ],
    }
    response = client_for("floor").post("/api/schedules/", body, format="json")
    assert response.status_code == 201, response.json()
    assert list(response.json()["warnings"]) == ["rates[0].fee_cents"]


# --- The schedule page: preview, then save (confirming any warning) --------------------------------------


@pytest.fixture
def floor(users: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(users["floor"])
    return client


def schedule_form(schedule: CollectionSchedule, **fees: str) -> dict[str, str]:
    """The page's form as drawn for ``schedule``'s latest version, with ``fee_<i>`` overrides."""
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    form = {}
    for i, r in enumerate(latest.rates.order_by("pk")):
        form[f"fee_{i}"] = f"{r.fee_cents / 100:.2f}"
        if r.others_fee_cents is not None:
            form[f"others_fee_{i}"] = f"{r.others_fee_cents / 100:.2f}"
    return form | fees | {"reason": "rate review"}


def digest_of(shown: str) -> str:
    found = re.search(r'name="preview_digest" value="([0-9a-f]+)"', shown)
    assert found is not None, "no preview on the page"
    return found.group(1)


def test_the_preview_shows_each_table_and_band_old_and_new(floor: Client, make_table: MakeTable) -> None:
    four_eight = make_table(stakes="limit-4-8", schedule="A")
    other = make_table(stakes="nl-20-100", schedule="A")
    schedule = CollectionSchedule.objects.get(code="A")
    rows = latest_rows(schedule)
    one_to_four, five_six = index_4_8(rows, 1), index_4_8(rows, 5)
    form = schedule_form(schedule, **{f"fee_{one_to_four}": "1.50", f"fee_{five_six}": "2"})
    # $1.50 is not whole $1 chips: refused before any preview (tests/tables/test_rates_whole_chips.py).
    assert floor.post("/floor/schedules/A/", form | {"step": "preview"}).status_code == 400
    form[f"fee_{one_to_four}"] = "4"
    form[f"fee_{five_six}"] = "5"
    response = floor.post("/floor/schedules/A/", form | {"step": "preview"})
    assert response.status_code == 200
    shown = response.content.decode()
    table_rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td><td[^>]*>([^<]+)</td>"
                            r"<td[^>]*>([^<]+)</td></tr>", shown)  # fmt: skip
    assert table_rows == [
        (str(four_eight.number), "$4-$8 limit", "2-4", "$1 from the button", "$4 from the button"),
        (str(four_eight.number), "$4-$8 limit", "5-6", "$2 from the button", "$5 from the button"),
    ]
    assert f"Unchanged at table {other.number}." in shown
    assert "<td>$4-$8</td><td>1-4</td>" in shown  # the schedule's own rows that change
    assert 'id="fee-warnings"' not in shown
    assert schedule.versions.count() == 1  # a preview writes nothing


def test_a_warned_fee_is_saved_only_when_confirmed(floor: Client, make_table: MakeTable) -> None:
    make_table(stakes="limit-4-8", schedule="A")
    schedule = CollectionSchedule.objects.get(code="A")
    i = index_4_8(latest_rows(schedule))
    form = schedule_form(schedule, **{f"fee_{i}": "200"})
    preview = floor.post("/floor/schedules/A/", form | {"step": "preview"})
    shown = preview.content.decode()
    assert preview.status_code == 200
    assert 'id="fee-warnings"' in shown
    assert "$200 from the button at $4-$8 (1-4 players) is more than 1/4 of the minimum buy-in ($80)" in shown
    assert 'name="confirm_warnings" id="id_confirm_warnings">' in shown  # drawn unticked
    save = form | {"step": "save", "preview_digest": digest_of(shown)}

    unconfirmed = floor.post("/floor/schedules/A/", save)
    assert unconfirmed.status_code == 400
    assert "tick the box to save them as they are" in unconfirmed.content.decode()
    assert schedule.versions.count() == 1

    confirmed = floor.post("/floor/schedules/A/", save | {"confirm_warnings": "on"})
    assert confirmed.status_code == 302
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    assert latest.number == 2
    assert latest.rates.order_by("pk")[i].fee_cents == 20_000


def test_only_the_change_previewed_is_saved(floor: Client, make_table: MakeTable) -> None:
    make_table(stakes="limit-4-8", schedule="A")
    schedule = CollectionSchedule.objects.get(code="A")
    i = index_4_8(latest_rows(schedule))
    form = schedule_form(schedule, **{f"fee_{i}": "2"})
    shown = floor.post("/floor/schedules/A/", form | {"step": "preview"}).content.decode()
    digest = digest_of(shown)
    # Saving without a preview, or with fees edited after it: the new preview, nothing saved.
    for stale in (
        form | {"step": "save"},
        form | {f"fee_{i}": "200", "step": "save", "preview_digest": digest},
    ):
        response = floor.post("/floor/schedules/A/", stale | {"confirm_warnings": "on"})
        assert response.status_code == 400
        assert "This is not the change previewed" in response.content.decode()
        assert digest_of(response.content.decode()) != ""
    assert schedule.versions.count() == 1
    # Another version saved in between (here: by the API) makes the preview stale too.
    services.revise_schedule(schedule=schedule, rates=latest_rows(schedule), by=None, reason="meanwhile")
    response = floor.post("/floor/schedules/A/", form | {"step": "save", "preview_digest": digest})
    assert response.status_code == 400
    assert schedule.versions.count() == 2


# --- The admin asks too -----------------------------------------------------------------------------------


def test_the_admin_saves_a_warned_fee_only_when_confirmed(users: dict[str, Any], house: None) -> None:
    schedule = CollectionSchedule.objects.get(code="CP1")
    data: dict[str, Any] = {
        "schedule": schedule.pk,
        "effective_from_0": "2099-01-01",
        "effective_from_1": "00:00:00",
        "reason": "new fees",
        "rates-TOTAL_FORMS": 1,
        "rates-INITIAL_FORMS": 0,
        "rates-0-structure": "points",
        "rates-0-point_min_cents": 100,
        "rates-0-point_max_cents": 10_000,
        "rates-0-players_min": 1,
        "rates-0-players_max": 10,
        "rates-0-payer": "each_player",
        "rates-0-fee_cents": 2_000,  # $20 each at $1 a point: a whole buy-in in four hands
    }
    client = Client()
    client.force_login(users["admin"])
    refused = client.post("/admin/tables/collectionscheduleversion/add/", data)
    assert refused.status_code == 200
    assert "more than 1/4 of the minimum buy-in ($20)" in refused.content.decode()
    assert schedule.versions.count() == 1
    saved = client.post("/admin/tables/collectionscheduleversion/add/", data | {"confirm_warnings": "on"})
    assert saved.status_code == 302
    assert schedule.versions.count() == 2

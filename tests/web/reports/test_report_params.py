"""One reading of the report filters and paging for the pages and the API: ASCII digits only,
bounded numbers, a 400 (the API's documented body; the page's filter form) for anything else.

Each case below answered 500 before (``int()`` read Arabic-Indic digits and any length; an offset
past 2**63 reached the database), or, for the drop counts, a 400 as an HTML page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from backoffice.reports.common import MAX_OFFSET, ReportFilterError, parse_whole

ARABIC_THREES = "\u0663" * 20  # ٣ x 20: int() reads it as 33333333333333333333
HUGE = str(2**64)

PAGED = ["hands", "journal"]
FILTERED = ["collection", "hands", "journal", "downs", "drops", "changes"]


@pytest.fixture
def auditor_api(client_for: Callable[[str | None], APIClient], house: None) -> APIClient:
    return client_for("auditor")


@pytest.fixture
def auditor_page(users: dict[str, Any], house: None) -> Client:
    client = Client()
    client.force_login(users["auditor"])
    return client


def _api_error(response: Any, field: str) -> dict[str, Any]:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == "invalid_filter"
    assert field in body["errors"], body
    return body


@pytest.mark.parametrize("report", PAGED)
@pytest.mark.parametrize("name", ["offset", "limit"])
@pytest.mark.parametrize("value", [HUGE, str(MAX_OFFSET + 1), "9" * 5_000])
def test_api_paging_beyond_the_maximum_is_a_400(
    auditor_api: APIClient, report: str, name: str, value: str
) -> None:
    response = auditor_api.get(f"/api/ledger/reports/{report}/", {name: value})
    body = _api_error(response, name)
    assert "from 0 to" in body["errors"][name]


@pytest.mark.parametrize("report", PAGED)
@pytest.mark.parametrize("name", ["offset", "limit"])
@pytest.mark.parametrize("value", [HUGE, "9" * 5_000])
def test_page_paging_beyond_the_maximum_is_a_form_error(
    auditor_page: Client, report: str, name: str, value: str
) -> None:
    response = auditor_page.get(f"/reports/{report}/", {name: value})
    assert response.status_code == 400
    assert "from 0 to" in response.content.decode()


@pytest.mark.parametrize("report", FILTERED)
@pytest.mark.parametrize("value", [ARABIC_THREES, "\u0663", "²", "1_000", HUGE, "40000"])
def test_api_table_filter_takes_ascii_table_numbers_only(
    auditor_api: APIClient, report: str, value: str
) -> None:
    report = {"drops": "drop-variance", "changes": "config-changes", "downs": "dealer-downs"}.get(
        report, report
    )
    response = auditor_api.get(f"/api/ledger/reports/{report}/", {"table": value})
    _api_error(response, "table")


@pytest.mark.parametrize("report", FILTERED)
@pytest.mark.parametrize("value", [ARABIC_THREES, "²", HUGE])
def test_page_table_filter_takes_ascii_table_numbers_only(
    auditor_page: Client, report: str, value: str
) -> None:
    response = auditor_page.get(f"/reports/{report}/", {"table": value})
    assert response.status_code == 400
    assert "table" in response.content.decode()


@pytest.mark.parametrize("value", [ARABIC_THREES, HUGE, "-5"])
def test_drop_variance_threshold_is_bounded(auditor_api: APIClient, auditor_page: Client, value: str) -> None:
    _api_error(auditor_api.get("/api/ledger/reports/drop-variance/", {"threshold_bp": value}), "threshold_bp")
    assert auditor_page.get("/reports/drops/", {"threshold_bp": value}).status_code == 400


def test_a_date_in_other_digits_is_refused(auditor_api: APIClient) -> None:
    _api_error(
        auditor_api.get("/api/ledger/reports/collection/", {"date_from": "\u0662\u0660\u0662\u0666-01-01"}),
        "date_from",
    )


def test_good_paging_still_pages(auditor_api: APIClient, auditor_page: Client) -> None:
    response = auditor_api.get("/api/ledger/reports/hands/", {"offset": " 0", "limit": "5", "table": "1,2"})
    assert response.status_code == 200, response.content[:300]
    assert response.json()["limit"] == 5
    assert auditor_page.get("/reports/journal/", {"offset": "0", "limit": "10"}).status_code == 200


def test_parse_whole_reads_ascii_digits_within_bounds() -> None:
    assert parse_whole(" 0042 ", "n", maximum=100) == 42
    for bad in ["", "+1", "-1", "1.0", "1e3", "٣", "0x10", "101", "1" * 400]:
        with pytest.raises(ReportFilterError) as refused:
            parse_whole(bad, "n", maximum=100)
        assert set(refused.value.errors) == {"n"}


@pytest.mark.parametrize(
    "content_type",
    ["multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\u00e9"],
)
def test_an_unreadable_multipart_body_gets_the_documented_error_body(
    client_for: Callable[[str | None], APIClient], house: None, content_type: str
) -> None:
    floor = client_for("floor")
    response = floor.post("/api/ledger/drop-counts/", "--x\r\n", content_type=content_type)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == "parse_error"
    assert body["detail"]


def test_a_page_with_an_unreadable_body_is_still_a_page(users: dict[str, Any], house: None) -> None:
    client = Client()
    client.force_login(users["floor"])
    response = client.post("/floor/tables/1/", "--x\r\n", content_type="multipart/form-data")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")

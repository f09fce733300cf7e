"""Who may see and do what: every report page and API call needs a login; auditors read every
report and export and change nothing; dealers see no reports; the count team enters counts; a
different user signs off a variance."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from backoffice.drop_counts import record_drop_count
from ledger.models import DropCount, ReportExport, ShiftClose, VarianceSignOff
from ledger.shifts import Shift, ShiftCode
from tests.factories import ReportRoom, at_local

pytestmark = pytest.mark.django_db

PAGES = [
    ("reports:index", {}),
    ("reports:collection", {}),
    ("reports:hands", {}),
    ("reports:players", {}),
    ("reports:journal", {}),
    ("reports:integrity", {}),
    ("reports:drops", {}),
    ("reports:changes", {}),
    ("reports:access", {}),
    ("reports:downs", {}),
    ("reports:shifts", {}),
    ("reports:exports", {}),
]
API = [
    "/api/ledger/reports/collection/",
    "/api/ledger/reports/hands/",
    "/api/ledger/reports/journal/",
    "/api/ledger/reports/integrity/",
    "/api/ledger/reports/drop-variance/",
    "/api/ledger/reports/config-changes/",
    "/api/ledger/reports/dealer-downs/",
    "/api/ledger/exports/",
    "/api/ledger/drop-counts/",
    "/api/ledger/fee-waivers/",
    "/api/ledger/shift-closes/",
    "/api/ledger/integrity-checks/",
]


@pytest.fixture
def counted(room: ReportRoom, staff: dict[str, Any], a_past_day: dt.date) -> DropCount:
    """A day of one table's fees ($3 recorded) and a drop count of $2 (a 33% variance)."""
    table = room.table(51, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    for hour in (9, 10, 11):
        room.hand(table, players, at=at_local(a_past_day, hour))
    return record_drop_count(
        table=table,
        shift=Shift(a_past_day, ShiftCode.DAY),
        amount_cents=200,
        counter_one="Rita",
        counter_two="Sam",
        by=staff["counter"],
    )


def _client(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.mark.parametrize(("name", "kwargs"), PAGES)
def test_pages_need_a_login(name: str, kwargs: dict[str, Any]) -> None:
    response = Client().get(reverse(name, kwargs=kwargs))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("url", API)
def test_api_needs_a_login(url: str) -> None:
    assert APIClient().get(url).status_code == 403


@pytest.mark.parametrize(("name", "kwargs"), PAGES)
def test_auditor_reads_every_page_dealer_and_nobody_none(
    name: str, kwargs: dict[str, Any], staff: dict[str, Any], counted: DropCount
) -> None:
    day = counted.shift_date.isoformat()
    url = reverse(name, kwargs=kwargs) + f"?date_from={day}&date_to={day}"
    assert _client(staff["auditor"]).get(url).status_code == 200
    assert _client(staff["dealer"]).get(url).status_code == 403
    assert _client(staff["nobody"]).get(url).status_code == 403


@pytest.mark.parametrize("url", API)
def test_auditor_reads_every_api_report(url: str, staff: dict[str, Any], counted: DropCount) -> None:
    day = counted.shift_date.isoformat()
    assert _api(staff["auditor"]).get(url, {"date_from": day, "date_to": day}).status_code == 200
    assert _api(staff["dealer"]).get(url).status_code == 403


def test_auditor_exports_every_report_but_posts_no_record(
    staff: dict[str, Any], counted: DropCount, django_capture_on_commit_callbacks: Any
) -> None:
    auditor = _client(staff["auditor"])
    day = counted.shift_date.isoformat()
    for name in (
        "reports:collection",
        "reports:hands",
        "reports:journal",
        "reports:drops",
        "reports:changes",
    ):
        for export_format in ("csv", "pdf"):
            with django_capture_on_commit_callbacks(execute=True):
                response = auditor.get(
                    reverse(name), {"date_from": day, "date_to": day, "format": export_format}
                )
            if export_format == "pdf":  # queued as an export, built on commit, then downloaded
                assert response.status_code == 302, name
                response = auditor.get(response["Location"])
            assert response.status_code == 200, (name, export_format)
            assert response["X-Content-SHA256"]
    player = counted.table.seatings.first().player
    response = auditor.get(reverse("reports:statement", args=[player.pk]), {"format": "csv"})
    assert response.status_code == 200
    # Requesting a background export is reading, not changing the books: allowed.
    assert (
        _api(staff["auditor"])
        .post(
            "/api/ledger/exports/",
            {"report": "collection", "format": "csv", "params": {"date_from": day}},
            format="json",
        )
        .status_code
        == 202
    )

    # ...but no drop count, correction, sign-off, waiver or shift close, by page or API.
    before = (DropCount.objects.count(), VarianceSignOff.objects.count(), ShiftClose.objects.count())
    shift = str(counted.shift)
    form = {"table": 51, "shift": shift, "amount": "3.00", "counter_one": "X", "counter_two": "Y"}
    assert auditor.post(reverse("reports:drop-new"), form).status_code == 403
    assert (
        auditor.post(reverse("reports:drop-correct", args=[counted.pk]), {**form, "reason": "r"}).status_code
        == 403
    )
    assert (
        auditor.post(reverse("reports:drop-sign-off", args=[counted.pk]), {"explanation": "e"}).status_code
        == 403
    )
    assert auditor.post(reverse("reports:shifts"), {"shift": shift}).status_code == 403
    api = _api(staff["auditor"])
    body = {"table": 51, "shift": shift, "amount_cents": 300, "counter_one": "X", "counter_two": "Y"}
    assert api.post("/api/ledger/drop-counts/", body, format="json").status_code == 403
    assert (
        api.post(f"/api/ledger/drop-counts/{counted.pk}/sign-off/", {"explanation": "e"}).status_code == 403
    )
    assert api.post("/api/ledger/shift-closes/", {"shift": shift}).status_code == 403
    assert api.post("/api/ledger/fee-waivers/", {}).status_code == 403
    assert (DropCount.objects.count(), VarianceSignOff.objects.count(), ShiftClose.objects.count()) == before


def test_count_team_enters_counts_and_another_user_signs_off(
    staff: dict[str, Any], counted: DropCount
) -> None:
    counter = _client(staff["counter"])
    # The counter may not sign off at all (no permission)...
    response = counter.post(
        reverse("reports:drop-sign-off", args=[counted.pk]), {"explanation": "short drop"}
    )
    assert response.status_code == 403
    # ...a manager who entered a count may not sign off their own count...
    manager = _client(staff["manager"])
    corrected = manager.post(
        reverse("reports:drop-correct", args=[counted.pk]),
        {"amount": "2.10", "counter_one": "Rita", "counter_two": "Sam", "reason": "recount"},
    )
    assert corrected.status_code == 302
    current = DropCount.objects.get(supersedes=counted)
    own = manager.post(reverse("reports:drop-sign-off", args=[current.pk]), {"explanation": "mine"})
    assert own.status_code == 403
    assert "someone other than" in own.content.decode()
    # ...the counter's own count is signed off by the manager.
    other = record_drop_count(
        table=counted.table,
        shift=Shift(counted.shift_date, ShiftCode.SWING),
        amount_cents=500,
        counter_one="Rita",
        counter_two="Sam",
        by=staff["counter"],
    )
    response = manager.post(
        reverse("reports:drop-sign-off", args=[other.pk]), {"explanation": "fees posted late"}
    )
    assert response.status_code == 302
    assert VarianceSignOff.objects.get(drop_count=other).signed_by == staff["manager"]


def test_count_form_through_the_page(staff: dict[str, Any], counted: DropCount) -> None:
    counter = _client(staff["counter"])
    shift = str(Shift(counted.shift_date, ShiftCode.GRAVE))
    form = {"table": 51, "shift": shift, "amount": "0", "counter_one": "Rita", "counter_two": "rita"}
    response = counter.post(reverse("reports:drop-new"), form)
    assert response.status_code == 400
    assert "two different people" in response.content.decode()
    response = counter.post(reverse("reports:drop-new"), {**form, "counter_two": "Sam"})
    assert response.status_code == 302
    assert DropCount.objects.get(shift_code="grave").amount_cents == 0


def test_export_download_needs_the_report_permission(staff: dict[str, Any], counted: DropCount) -> None:
    export = ReportExport.objects.create(
        kind="collection", format="csv", params={}, status="done", content=b"x", sha256="0" * 64, size=1
    )
    url = reverse("reports:export-download", args=[export.pk])
    assert _client(staff["auditor"]).get(url).content == b"x"
    assert _client(staff["dealer"]).get(url).status_code == 403
    assert _api(staff["dealer"]).get(f"/api/ledger/exports/{export.pk}/download/").status_code == 403

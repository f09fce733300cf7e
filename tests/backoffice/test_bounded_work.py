"""Bounded work (docs/reports.md, "Bounded work"): a page's PDF (and a CSV over the inline bound) is
queued, never laid out in the request, and the page polls for it; periods and page sizes have
limits; an export's file is kept ``EXPORT_RETENTION_DAYS`` and then dropped, its record kept; report
requests, export requests and downloads are limited per user, 429 beyond.

Bounded time is shown by bounded work: the queries a queued PDF costs don't grow with the data of
its period, and the builders and the PDF writer are not called in the request."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from backoffice import exports, schedules, tasks
from backoffice.exports import building
from backoffice.reports import collection, journal, limits
from backoffice.reports.common import ReportFilterError
from ledger.models import ExportStatus, ReportExport
from tests.factories import ReportRoom, at_local, file_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_year(room: ReportRoom, a_past_day: dt.date) -> tuple[dt.date, dt.date]:
    """The longest period allowed (366 days up to ``a_past_day``), with hands on its last days."""
    table = room.table(91, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy"])
    for back in range(12):
        room.hand(table, players, at=at_local(a_past_day - dt.timedelta(days=back), 10))
    return a_past_day - dt.timedelta(days=limits.MAX_PERIOD_DAYS - 1), a_past_day


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("called in the request")


def test_a_page_pdf_is_queued_polled_and_downloaded_never_built_in_the_request(
    a_year: tuple[dt.date, dt.date],
    staff: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    start, end = a_year
    client = _client(staff["auditor"])
    empty = {"date_from": "2021-01-01", "date_to": "2021-01-01", "format": "pdf"}
    full = {"date_from": start.isoformat(), "date_to": end.isoformat(), "format": "pdf"}
    with monkeypatch.context() as nothing_built:
        for name in ("build_journal", "journal_lines"):
            nothing_built.setattr(journal, name, _refuse)
        nothing_built.setattr(building, "to_pdf", _refuse)
        nothing_built.setattr(exports, "render_file", _refuse)
        with (
            django_capture_on_commit_callbacks() as none_queued_yet,
            CaptureQueriesContext(connection) as few,
        ):
            client.get(reverse("reports:journal"), empty)
        with django_capture_on_commit_callbacks() as queued, CaptureQueriesContext(connection) as year:
            response = client.get(reverse("reports:journal"), full)
        # The same queries for a year of hands as for a day without any: none reads the report.
        assert len(year.captured_queries) == len(few.captured_queries) <= 12
        assert len(queued) == len(none_queued_yet) == 1  # build_export, sent on commit
        export = ReportExport.objects.order_by("-pk").first()
        assert export is not None
        assert response.status_code == 302
        assert response["Location"] == reverse("reports:export-download", args=[export.pk])
        # The page's PDF is of the page it shows: its offset and limit are the export's.
        assert export.params == {
            "date_from": start.isoformat(),
            "date_to": end.isoformat(),
            "offset": "0",
            "limit": str(journal.DEFAULT_LIMIT),
        }
        assert export.status == ExportStatus.PENDING
        # Loaded again (a reload, a second click): the same export, nothing more queued.
        with django_capture_on_commit_callbacks() as again:
            assert client.get(reverse("reports:journal"), full)["Location"] == response["Location"]
        assert again == []
        assert ReportExport.objects.count() == 2
        # The export's page waits (202) and polls with htmx (no script of its own: the CSP).
        waiting = client.get(response["Location"])
        assert waiting.status_code == 202
        page = waiting.content.decode()
        assert 'hx-trigger="every 2s"' in page
        assert "<script>" not in page
        poll = client.get(response["Location"], headers={"HX-Request": "true"}).content.decode()
        assert "hx-get" in poll
        assert "<html" not in poll
    # The worker builds it (here: the job the request queued, run now).
    queued[0]()
    export.refresh_from_db()
    assert export.status == ExportStatus.DONE
    ready = client.get(response["Location"], headers={"HX-Request": "true"}).content.decode()
    assert "hx-get" not in ready
    assert "download" in ready
    printed = client.get(response["Location"])
    assert file_bytes(printed).startswith(b"%PDF-")
    assert printed["X-Content-SHA256"] == export.sha256


def test_a_csv_over_the_inline_bound_is_queued_a_small_one_served(
    a_year: tuple[dt.date, dt.date],
    staff: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, end = a_year
    client = _client(staff["auditor"])
    params = {"date_from": end.isoformat(), "format": "csv"}
    small = client.get(reverse("reports:collection"), params)
    assert small.status_code == 200
    assert small["Content-Type"] == "application/zip"
    monkeypatch.setattr(exports, "INLINE_CSV_MAX_ROWS", 2)
    with django_capture_on_commit_callbacks() as queued:
        big = client.get(reverse("reports:collection"), params)
    assert big.status_code == 302
    assert len(queued) == 1
    export = ReportExport.objects.get()
    assert (export.kind, export.format, export.params) == (
        "collection",
        "csv",
        {"date_from": end.isoformat()},
    )


def test_periods_and_page_sizes_have_limits(a_year: tuple[dt.date, dt.date], staff: dict[str, Any]) -> None:
    start, end = a_year
    page, api = _client(staff["auditor"]), _api(staff["auditor"])
    fifty_years = {"date_from": "1990-01-01", "date_to": "2039-12-31"}
    one_too_many = {"date_from": (start - dt.timedelta(days=1)).isoformat(), "date_to": end.isoformat()}
    for period in (fifty_years, one_too_many):
        refused = page.get(reverse("reports:collection"), period)
        assert refused.status_code == 400
        assert f"at most {limits.MAX_PERIOD_DAYS} days" in refused.content.decode()
        assert page.get(reverse("reports:journal"), {**period, "format": "pdf"}).status_code == 400
        answer = api.get("/api/ledger/reports/collection/", period)
        assert answer.status_code == 400
        assert set(answer.json()["errors"]) == {"date_to"}
        asked = api.post(
            "/api/ledger/exports/", {"report": "journal", "format": "pdf", "params": period}, format="json"
        )
        assert asked.status_code == 400
        assert set(asked.json()["errors"]) == {"date_to"}
        form = page.post(reverse("reports:exports"), {"kind": "collection", "format": "csv", **period})
        assert form.status_code == 400
    assert not ReportExport.objects.exists()
    # A year, a leap year's too, is allowed.
    year = {"date_from": start.isoformat(), "date_to": end.isoformat()}
    assert api.get("/api/ledger/reports/collection/", year).status_code == 200
    # Page sizes: 1 to MAX_PAGE_SIZE rows, on the pages, the API and the export requests.
    for limit, code in ((limits.MAX_PAGE_SIZE, 200), (limits.MAX_PAGE_SIZE + 1, 400), (0, 400)):
        assert page.get(reverse("reports:journal"), {**year, "limit": limit}).status_code == code
        assert page.get(reverse("reports:hands"), {**year, "limit": limit}).status_code == code
        assert api.get("/api/ledger/reports/journal/", {**year, "limit": limit}).status_code == code
        assert api.get("/api/ledger/reports/hands/", {**year, "limit": limit}).status_code == code
    with pytest.raises(ReportFilterError) as too_big:
        exports.request_export(
            kind="journal", export_format="pdf", params={**year, "limit": "2000"}, by=staff["auditor"]
        )
    assert set(too_big.value.errors) == {"limit"}


def test_exports_are_kept_for_a_set_time_and_their_records_for_ever(
    a_year: tuple[dt.date, dt.date], staff: dict[str, Any], settings: Any
) -> None:
    _, end = a_year
    settings.EXPORT_RETENTION_DAYS = 30
    made = []
    for _ in range(2):  # each built before the next is asked (one still queued would be reused)
        export = exports.request_export(
            kind="collection", export_format="csv", params={"date_from": end.isoformat()}, by=staff["auditor"]
        )
        exports.build_export(export.pk)
        made.append(export)
    old, recent = made
    now = timezone.now()
    ReportExport.objects.filter(pk=old.pk).update(finished_at=now - dt.timedelta(days=30, seconds=1))
    ReportExport.objects.filter(pk=recent.pk).update(finished_at=now - dt.timedelta(days=29))
    old.refresh_from_db()
    sha, size = old.sha256, old.size
    # Past its retention and not purged yet, the file isn't served already.
    page, api = _client(staff["auditor"]), _api(staff["auditor"])
    assert page.get(reverse("reports:export-download", args=[old.pk])).status_code == 410
    # The daily job (a beat schedule) drops the file; the row stays, with the file's sha256 and size.
    assert "ledger.purge_expired_exports" in {schedule.task for schedule in schedules.SCHEDULES}
    assert tasks.purge_expired_exports.delay().get() == 1
    assert exports.purge_expired_exports() == 0  # again: nothing more
    old.refresh_from_db()
    assert (old.status, old.content, old.sha256, old.size) == (ExportStatus.EXPIRED, None, sha, size)
    assert ReportExport.objects.count() == 2
    recent.refresh_from_db()
    assert recent.status == ExportStatus.DONE
    assert recent.content is not None
    # Downloads answer 410 Gone: the page says so, the API with the documented body.
    gone = page.get(reverse("reports:export-download", args=[old.pk]))
    assert gone.status_code == 410
    assert "is gone" in gone.content.decode()
    answer = api.get(f"/api/ledger/exports/{old.pk}/download/")
    assert answer.status_code == 410
    assert answer.json()["code"] == "export_expired"
    assert api.get(f"/api/ledger/exports/{recent.pk}/download/").status_code == 200
    # A late retry of its job doesn't build the dropped file again; the row can't be deleted.
    assert exports.build_export(old.pk).status == ExportStatus.EXPIRED
    with pytest.raises(TypeError):
        old.delete()


@override_settings(
    HEAVY_REQUEST_RATES={"reports": "2/minute", "exports": "1/minute", "downloads": "1/minute"}
)
def test_heavy_requests_are_limited_per_user_on_the_api_and_the_pages(
    a_year: tuple[dt.date, dt.date], staff: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    _, end = a_year
    day = {"date_from": end.isoformat()}
    api, page = _api(staff["auditor"]), _client(staff["auditor"])
    assert api.get("/api/ledger/reports/collection/", day).status_code == 200
    assert page.get(reverse("reports:collection"), day).status_code == 200
    # The third report of the minute, by API or page: 429 (one count for both).
    throttled = api.get("/api/ledger/reports/collection/", day)
    assert throttled.status_code == 429
    assert throttled.json()["code"] == "throttled"
    assert set(throttled.json()) == {"code", "detail"}
    assert int(throttled["Retry-After"]) > 0
    refused = page.get(reverse("reports:journal"), day)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    # Another user has counts of their own.
    assert _api(staff["manager"]).get("/api/ledger/reports/collection/", day).status_code == 200
    # Export requests.
    body = {"report": "collection", "format": "csv", "params": day}
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post("/api/ledger/exports/", body, format="json")
    assert first.status_code == 202
    assert api.post("/api/ledger/exports/", body, format="json").status_code == 429
    assert page.get(reverse("reports:collection"), {**day, "format": "pdf"}).status_code == 429
    assert ReportExport.objects.count() == 1
    # Downloads.
    url = f"/api/ledger/exports/{first.json()['id']}/download/"
    assert api.get(url).status_code == 200
    assert api.get(url).status_code == 429
    assert page.get(reverse("reports:export-download", args=[first.json()["id"]])).status_code == 429
    # Reading the list of exports isn't limited.
    assert api.get("/api/ledger/exports/").status_code == 200


def test_the_collection_builder_is_not_what_a_queued_page_calls(
    a_year: tuple[dt.date, dt.date], staff: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every report page queues its PDF without building it (the collection report, here)."""
    start, end = a_year
    monkeypatch.setattr(collection, "build_collection_report", _refuse)
    response = _client(staff["auditor"]).get(
        reverse("reports:collection"),
        {"date_from": start.isoformat(), "date_to": end.isoformat(), "format": "pdf"},
    )
    assert response.status_code == 302

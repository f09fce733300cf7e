"""``/api/ledger/reports/integrity/`` answers as the integrity page does, through the same function
(``backoffice.integrity_status``): GET reads the stored checks and never verifies in the request (a
bounded answer, however damaged the ledger: the problems counted, the first ones listed); POST queues
the full check for the worker on commit and answers 202 with the URL to poll; the job runs the same
service as the page's; the reports' permission as before; the schema documents both."""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from backoffice import integrity_checks, integrity_status, tasks
from backoffice.reports import integrity
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from tests.factories import ReportRoom, at_local

pytestmark = pytest.mark.django_db

URL = "/api/ledger/reports/integrity/"


def _api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def played(room: ReportRoom, a_past_day: dt.date) -> None:
    """A few settled hands: rows for a full check to read."""
    table = room.table(61, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    for minute in range(3):
        room.hand(table, players, at=at_local(a_past_day, 10, minute))


@pytest.fixture
def damaged_check(db: None) -> IntegrityCheck:
    """A stored check of a badly damaged ledger, as ``run_full_check`` stores one: the first
    ``MAX_PROBLEMS`` problems and a line counting the 50,000 more."""
    kept = [
        {"code": "hash_mismatch", "message": f"transaction {i} does not match its hash " + "x" * 200}
        for i in range(1000)
    ]
    now = timezone.now()
    return IntegrityCheck.objects.create(
        started_at=now - dt.timedelta(minutes=2),
        finished_at=now,
        source=CheckSource.NIGHTLY,
        scope=IntegrityScope.LEDGER,
        ok=False,
        transactions=51_000,
        entries=102_000,
        accounts=40,
        chains=3,
        problems=[*kept, {"code": "ledger_more", "message": "50000 more not stored", "more": 50_000}],
        guards={"vendor": "sqlite", "triggers": [], "probes": [], "notes": []},
        software_version="casino test",
    )


@pytest.fixture
def no_verifying(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way to verify rows raises: an answer that needs one fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a request verified the ledger")

    for target, name in (
        (integrity_checks, "run_full_check"),
        (integrity_checks, "verify_ledger"),
        (integrity_checks, "check_hands"),
        (integrity, "verify_books"),
        (integrity, "check_database_guards"),
        (integrity, "build_integrity_report"),
    ):
        monkeypatch.setattr(target, name, refuse)


@pytest.mark.usefixtures("no_verifying")
def test_get_reads_the_stored_check_and_verifies_nothing(
    damaged_check: IntegrityCheck, staff: dict[str, Any]
) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = _api(staff["auditor"]).get(URL)
    assert response.status_code == 200, response.content
    read = " ".join(query["sql"] for query in queries.captured_queries)
    assert "ledger_entry" not in read
    assert "ledger_journaltransaction" not in read
    assert "tables_hand" not in read
    assert len(queries.captured_queries) <= 12
    body = response.json()
    last = body["last_check"]
    assert (last["check_id"], last["ok"], last["source"]) == (damaged_check.pk, False, "nightly")
    assert last["problem_count"] == 51_000  # every problem counted...
    assert len(last["problems"]) == body["shown_problems"] == integrity.SHOWN_PROBLEMS  # ...the first shown
    assert {problem["code"] for problem in last["problems"]} == {"hash_mismatch"}  # no counting line
    assert len(response.content) < 60_000  # the stored row holds 250 KB of problems
    assert body["requested"] is None
    assert "no-store" in response["Cache-Control"]


@pytest.mark.usefixtures("as_the_app_role")  # a superuser's connection fails the guard line, rightly
def test_post_queues_the_full_check_on_commit_and_answers_202_with_the_url_to_poll(
    played: None,
    staff: dict[str, Any],
    django_capture_on_commit_callbacks: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = _api(staff["auditor"])
    ran: list[Any] = []
    service = integrity_checks.run_full_check

    def spy(**kwargs: Any) -> IntegrityCheck:
        ran.append(kwargs)
        return service(**kwargs)

    monkeypatch.setattr(integrity_checks, "run_full_check", spy)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        queued = api.post(URL)
    assert queued.status_code == 202, queued.content
    body = queued.json()
    assert (body["after"], body["queued"]) == (0, True)
    assert body["status_url"] == queued["Location"]
    assert body["status_url"].endswith(f"{URL}?after=0")
    assert callbacks  # queued...
    assert not ran  # ...and not run in the request
    assert not IntegrityCheck.objects.exists()

    waiting = api.get(body["status_url"]).json()
    assert waiting["requested"] == {"after": 0, "done": False, "check": None}
    for callback in callbacks:  # the request commits: the worker runs the job
        callback()
    assert [call["source"] for call in ran] == [CheckSource.MANUAL]  # the page's service, as the page asks
    done = api.get(body["status_url"]).json()
    check = IntegrityCheck.objects.get()
    assert done["requested"]["done"] is True
    found = done["requested"]["check"]
    assert (found["check_id"], found["ok"], found["source"], found["triggered_by"]) == (
        check.pk,
        True,
        "manual",
        "auditor",
    )
    assert found["transactions"] == check.transactions > 0
    # What each part verified, and when: the full check's checkpoints, read from the records.
    assert {(line["kind_code"], line["part_code"]) for line in done["checkpoints"]} == {
        ("ledger", "full"),
        ("hands", "full"),
    }
    assert done["last_check"]["check_id"] == check.pk


def test_asking_again_while_pending_queues_nothing_more(
    played: None, staff: dict[str, Any], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    api = _api(staff["auditor"])
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(URL).json()
    # The job was sent (run here: no broker in the tests) and stored; a second one is asked for
    # and left pending (the worker has not run it)...
    assert IntegrityCheck.objects.count() == 1
    with django_capture_on_commit_callbacks(execute=False) as sent:
        second = api.post(URL).json()
    for callback in sent:
        if callback.__qualname__.startswith("queue_full_check"):
            callback()  # the pending mark, not the job
    assert second["queued"] is True
    assert second["after"] == IntegrityCheck.objects.get().pk != first["after"]
    # ...so asking again, from any client, polls for that one and queues nothing.
    with django_capture_on_commit_callbacks(execute=False) as again:
        third = _api(staff["floor"]).post(URL)
    assert third.status_code == 202
    assert (third.json()["queued"], third.json()["after"]) == (False, second["after"])
    assert again == []


@pytest.mark.usefixtures("as_the_app_role")  # a superuser's connection fails the guard line, rightly
def test_the_job_is_safe_to_run_twice(played: None, staff: dict[str, Any]) -> None:
    user_id = staff["auditor"].pk
    first = tasks.verify_ledger_full.apply(args=[user_id]).get()
    second = tasks.verify_ledger_full.apply(args=[user_id]).get()
    assert first != second
    assert list(IntegrityCheck.objects.order_by("pk").values_list("ok", "source")) == [
        (True, "manual"),
        (True, "manual"),
    ]
    requested = integrity_status.requested_check(0)
    assert (requested.done, requested.check.check_id if requested.check else None) == (True, first)


def test_the_reports_permission_as_before(
    staff: dict[str, Any], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    for who in (None, "dealer", "nobody"):
        api = _api(staff[who] if who else None)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            assert api.get(URL).status_code == 403, who
            assert api.post(URL).status_code == 403, who
        assert callbacks == [], who
    assert _api(staff["auditor"]).get(URL).status_code == 200


def test_a_bad_after_is_a_400(staff: dict[str, Any]) -> None:
    response = _api(staff["auditor"]).get(URL, {"after": "1e3"})
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"after"}


def test_the_schema_documents_both_methods(db: None) -> None:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    operations = schema["paths"][URL]
    assert set(operations) >= {"get", "post"}
    assert [p["name"] for p in operations["get"]["parameters"]] == ["after"]
    assert "202" in operations["post"]["responses"]
    assert "200" not in operations["post"]["responses"]
    components = schema["components"]["schemas"]
    status_ref = operations["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    status = components[status_ref.rsplit("/", 1)[1]]
    assert {"last_check", "checkpoints", "requested", "shown_problems"} <= set(status["properties"])
    assert {"problem_count", "problems"} <= set(components["LedgerStoredCheck"]["properties"])
    queued_ref = operations["post"]["responses"]["202"]["content"]["application/json"]["schema"]["$ref"]
    assert {"after", "queued", "status_url"} <= set(components[queued_ref.rsplit("/", 1)[1]]["properties"])

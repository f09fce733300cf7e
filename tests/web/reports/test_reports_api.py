"""The ledger's API: every report as JSON (the same figures as the builders), export requests,
drop counts, corrections, sign-offs, waivers and shift closes, with their errors; and the OpenAPI
schema documents it all and validates without warnings."""

from __future__ import annotations

import datetime as dt
import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilters
from ledger.hashing import sha256_hex
from ledger.models import FeeWaiver, ReportExport, ShiftClose
from ledger.shifts import Shift, ShiftCode
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def room_day(room: ReportRoom, a_past_day: dt.date) -> dict[str, Any]:
    table = room.table(131, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy", "Dee"])
    hands = [room.hand(table, players[: 2 + i % 3], at=at_local(a_past_day, 9 + i)) for i in range(4)]
    room.settle(hands[0], [(players[1], players[0], 300)])
    unpaid = room.hand(table, players[:2], at=at_local(a_past_day, 15), collect=False)
    return {"day": a_past_day, "table": table, "players": players, "hands": hands, "unpaid": unpaid}


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_collection_json_matches_the_builder(room_day: dict[str, Any], staff: dict[str, Any]) -> None:
    day = room_day["day"].isoformat()
    response = _api(staff["auditor"]).get(
        "/api/ledger/reports/collection/", {"date_from": day, "date_to": day}
    )
    assert response.status_code == 200
    body = response.json()
    report = build_collection_report(ReportFilters(date_from=room_day["day"], date_to=room_day["day"]))
    assert body["totals"]["fees_due_cents"] == report.totals.fees_due_cents
    assert body["totals"]["fees_collected_cents"] == sum(rpt_fee(2 + i % 3) for i in range(4))
    assert body["unexplained_cents"] == rpt_fee(2)  # the unpaid hand
    assert [flag["code"] for flag in body["flags"]] == ["unexplained_shortfall"]
    assert body["rows"][0]["table_number"] == 131
    assert body["meta"]["filters"] == {"date_from": day, "date_to": day, "shift": None, "tables": []}
    assert len(body["meta"]["export_sha256"]) == 64
    assert body["meta"]["software_version"].startswith("casino ")
    assert len(body["by_hour"]) == 24


@pytest.mark.usefixtures("as_the_app_role")  # a superuser's connection fails the guard line, rightly
def test_every_report_answers_json(room_day: dict[str, Any], staff: dict[str, Any]) -> None:
    api = _api(staff["auditor"])
    day = room_day["day"].isoformat()
    params = {"date_from": day, "date_to": day}
    hands = api.get("/api/ledger/reports/hands/", {**params, "limit": 2}).json()
    assert (hands["total"], len(hands["hands"]), hands["limit"]) == (5, 2, 2)
    settlement = [e for e in hands["hands"][0]["payments"] if e["kind"] == "settlement_payment"]
    assert [(e["player"], e["amount_cents"]) for e in settlement] == [("Ben", -300), ("Ann", 300)]
    downs = api.get("/api/ledger/reports/dealer-downs/", params).json()
    assert (downs["lines"], downs["hands"]) == ([], 0)
    ann = room_day["players"][0]
    statement = api.get("/api/ledger/reports/statement/", {"player": ann.pk}).json()
    assert statement["player"] == "Ann"
    assert api.get("/api/ledger/reports/statement/", {"player": 999999}).status_code == 404
    journal = api.get("/api/ledger/reports/journal/", {"limit": 5}).json()
    assert journal["entries_sum_cents"] == 0
    integrity = api.get("/api/ledger/reports/integrity/").json()
    assert (integrity["last_check"], integrity["checkpoints"]) == (None, [])  # nothing stored yet
    drops = api.get("/api/ledger/reports/drop-variance/", {**params, "threshold_bp": 100}).json()
    assert drops["threshold_bp"] == 100
    assert drops["not_counted"] == 1
    assert api.get("/api/ledger/reports/config-changes/", params).status_code == 200


def test_bad_filters_are_400_with_the_fields(staff: dict[str, Any]) -> None:
    response = _api(staff["auditor"]).get(
        "/api/ledger/reports/collection/", {"shift": "noon", "date_from": "x"}
    )
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"shift", "date_from"}
    assert response.json()["code"] == "invalid_filter"


def test_drop_counts_through_the_api(room_day: dict[str, Any], staff: dict[str, Any]) -> None:
    shift = str(Shift(room_day["day"], ShiftCode.DAY))
    counter, manager = _api(staff["counter"]), _api(staff["manager"])
    body = {"table": 131, "shift": shift, "amount_cents": 100, "counter_one": "Rita", "counter_two": "Sam"}
    created = counter.post("/api/ledger/drop-counts/", body, format="json")
    assert created.status_code == 201, created.content
    count = created.json()
    assert (count["table"], count["shift"], count["entered_by"], count["sign_off"]) == (
        131,
        shift,
        "counter",
        None,
    )
    again = counter.post("/api/ledger/drop-counts/", body, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_counted")
    same = counter.post("/api/ledger/drop-counts/", {**body, "counter_two": "RITA"}, format="json")
    assert (same.status_code, same.json()["code"], same.json()["field"]) == (
        400,
        "same_counter",
        "counter_two",
    )
    missing = counter.post("/api/ledger/drop-counts/", {**body, "table": 999}, format="json")
    assert missing.status_code == 404
    # The counter can't sign off; the manager can, as a different user.
    url = f"/api/ledger/drop-counts/{count['id']}/sign-off/"
    assert counter.post(url, {"explanation": "x"}, format="json").status_code == 403
    signed = manager.post(url, {"explanation": "fees of hand 4 counted at table 132"}, format="json")
    assert signed.status_code == 201, signed.content
    assert signed.json()["variance_cents"] == 100 - sum(rpt_fee(2 + i % 3) for i in range(4))
    corrected = manager.post(
        f"/api/ledger/drop-counts/{count['id']}/correct/",
        {"amount_cents": 200, "counter_one": "Rita", "counter_two": "Sam", "reason": "recount"},
        format="json",
    )
    assert corrected.status_code == 201
    assert corrected.json()["supersedes"] == count["id"]
    listed = counter.get("/api/ledger/drop-counts/").json()["results"]
    assert {row["id"]: row["superseded_by"] for row in listed} == {
        count["id"]: corrected.json()["id"],
        corrected.json()["id"]: None,
    }


def test_waivers_through_the_api(room_day: dict[str, Any], staff: dict[str, Any]) -> None:
    unpaid, button = room_day["unpaid"], room_day["players"][0]
    manager = _api(staff["manager"])
    too_much = manager.post(
        "/api/ledger/fee-waivers/",
        {"hand": unpaid.pk, "player": button.pk, "amount_cents": rpt_fee(2) + 1, "reason": "comp"},
        format="json",
    )
    assert (too_much.status_code, too_much.json()["code"]) == (400, "more_than_outstanding")
    other = manager.post(
        "/api/ledger/fee-waivers/",
        {"hand": unpaid.pk, "player": room_day["players"][3].pk, "amount_cents": 1, "reason": "comp"},
        format="json",
    )
    assert (other.status_code, other.json()["code"]) == (400, "not_dealt_in")
    ok = manager.post(
        "/api/ledger/fee-waivers/",
        {"hand": unpaid.pk, "player": button.pk, "amount_cents": rpt_fee(2), "reason": "comp: regular"},
        format="json",
    )
    assert ok.status_code == 201
    assert FeeWaiver.objects.get().reason == "comp: regular"
    day = room_day["day"].isoformat()
    body = _api(staff["auditor"]).get("/api/ledger/reports/collection/", {"date_from": day}).json()
    assert body["unexplained_cents"] == 0
    assert body["flags"] == []


def test_shift_close_and_exports_through_the_api(
    room_day: dict[str, Any], staff: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    shift = str(Shift(room_day["day"], ShiftCode.DAY))
    manager = _api(staff["manager"])
    first = manager.post("/api/ledger/shift-closes/", {"shift": shift}, format="json")
    assert first.status_code == 201
    again = manager.post("/api/ledger/shift-closes/", {"shift": shift}, format="json")
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])
    assert ShiftClose.objects.count() == 1
    running = manager.post("/api/ledger/shift-closes/", {"shift": str(Shift.current())}, format="json")
    assert (running.status_code, running.json()["code"]) == (409, "shift_not_ended")

    # The sealed export downloads as stored: the zip of CSVs whose sha256 the close publishes.
    close = ShiftClose.objects.get()
    sealed = _api(staff["auditor"]).get(f"/api/ledger/shift-closes/{close.pk}/download/")
    assert sealed.status_code == 200
    assert sealed["Content-Type"] == "application/zip"
    name = f"shift-close-{shift.replace('/', '_')}.zip"
    assert sealed["Content-Disposition"] == f'attachment; filename="{name}"'
    assert sealed.content == bytes(close.export_zip)
    assert sealed["X-Content-SHA256"] == first.json()["export_sha256"] == sha256_hex(sealed.content)
    for missing in (close.pk + 1, "x"):
        assert _api(staff["auditor"]).get(f"/api/ledger/shift-closes/{missing}/download/").status_code == 404

    auditor = _api(staff["auditor"])
    with django_capture_on_commit_callbacks(execute=True):
        requested = auditor.post(
            "/api/ledger/exports/",
            {"report": "collection", "format": "pdf", "params": {"shift": shift}},
            format="json",
        )
    assert requested.status_code == 202
    export = ReportExport.objects.get(pk=requested.json()["id"])
    assert export.status == "done"
    detail = auditor.get(f"/api/ledger/exports/{export.pk}/").json()
    assert (detail["report"], detail["format"], detail["sha256"]) == ("collection", "pdf", export.sha256)
    download = auditor.get(f"/api/ledger/exports/{export.pk}/download/")
    assert download.status_code == 200
    assert b"".join(download.streaming_content if download.streaming else [download.content]).startswith(
        b"%PDF"
    )


def test_openapi_schema_documents_the_ledger_api(db: None) -> None:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    paths = schema["paths"]
    for path in (
        "/api/ledger/reports/collection/",
        "/api/ledger/reports/hands/",
        "/api/ledger/reports/statement/",
        "/api/ledger/reports/journal/",
        "/api/ledger/reports/integrity/",
        "/api/ledger/reports/drop-variance/",
        "/api/ledger/reports/config-changes/",
        "/api/ledger/exports/",
        "/api/ledger/exports/{id}/download/",
        "/api/ledger/drop-counts/{id}/sign-off/",
        "/api/ledger/shift-closes/",
        "/api/ledger/shift-closes/{id}/download/",
    ):
        assert path in paths, path
    report = schema["components"]["schemas"]["LedgerCollectionReport"]
    assert "fees_due_cents" in schema["components"]["schemas"]["LedgerFigures"]["properties"]
    assert set(report["properties"]) >= {"meta", "rows", "totals", "flags", "by_hour"}

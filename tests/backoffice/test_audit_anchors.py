"""Signed anchors published outside the database: every shift close and every integrity check records
the chain heads it saw, signed, and shows them in its page, CSV and PDF; ``verify_anchors`` reads the
CSV back; a later check compares the stored ones."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from backoffice import closing
from backoffice.audit import verify_books
from backoffice.exports import render, sections_of, to_csv
from backoffice.reports.integrity import build_integrity_report
from ledger import anchors
from ledger.hashing import sha256_hex
from ledger.keys import new_signing_key
from ledger.models import ChainHead, IntegrityScope, JournalTransaction
from ledger.shifts import Shift, ShiftCode
from tests.factories import ReportRoom, at_local
from tests.ledger.forgery import rechain, sql, triggers_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def public_key(settings: Any) -> str:
    private, public = new_signing_key()
    settings.LEDGER_ANCHOR_SIGNING_KEY = f"a1:{private}"
    return f"a1:{public}"


@pytest.fixture
def played_day(room: ReportRoom, a_past_day: dt.date, public_key: str) -> dict[str, Any]:
    table = room.table(81, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    for i in range(3):
        room.hand(table, players, at=at_local(a_past_day, 9, 10 * i))
    return {"table": table, "shift": Shift(a_past_day, ShiftCode.DAY)}


def heads_now() -> list[dict[str, Any]]:
    return [
        {"chain": chain, "sequence": sequence, "hash": head_hash}
        for chain, sequence, head_hash in ChainHead.objects.filter(sequence__gt=0)
        .order_by("chain")
        .values_list("chain", "sequence", "hash")
    ]


def forge_first_row() -> None:
    first = JournalTransaction.objects.order_by("pk").first()
    assert first is not None
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = 'edited' WHERE id = %s", [first.pk])
        rechain(first.chain, key=b"x" * 32)


@pytest.mark.tamper
def test_a_shift_close_signs_the_heads_into_its_record_and_csv(
    played_day: dict[str, Any], public_key: str, tmp_path: Path
) -> None:
    close = closing.close_shift(shift=played_day["shift"])
    assert close.anchors["heads"] == heads_now()
    assert close.anchors["context"] == f"shift close {played_day['shift']}"
    assert anchors.compare([("close", close.anchors)]).ok
    # The frozen CSV carries them, and its checksum is still the CSV's.
    assert anchors.HEADS_TITLE in close.export_csv
    assert close.export_sha256 == sha256_hex(close.export_csv.encode())
    assert close.report["meta"]["export_sha256"] == close.export_sha256
    assert closing.frozen_matches_live(close)

    published = tmp_path / "shift.csv"
    published.write_text(close.export_csv)
    out = StringIO()
    call_command("verify_anchors", str(published), "--public-key", public_key, stdout=out)
    assert "anchors OK: 1 document(s), 1 published head(s)" in out.getvalue()

    forge_first_row()
    err = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "verify_anchors", str(published), "--public-key", public_key, stdout=StringIO(), stderr=err
        )
    assert "[anchor_mismatch]" in err.getvalue()


def test_the_shift_page_shows_the_signed_heads(played_day: dict[str, Any], staff: dict[str, Any]) -> None:
    close = closing.close_shift(shift=played_day["shift"])
    client = Client()
    client.force_login(staff["auditor"])
    html = client.get(reverse("reports:shift", args=[close.pk])).content.decode()
    assert "Ledger chain heads at the close, signed" in html
    assert close.anchors["signature"] in html
    assert close.anchors["heads"][0]["hash"] in html


@pytest.mark.tamper
def test_the_integrity_check_stores_signed_heads_and_a_later_check_compares(
    played_day: dict[str, Any], settings: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    settings.LEDGER_ANCHOR_DIR = str(tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        check = closing.run_integrity_check()
    assert check.problems == []  # (its guards' verdict depends on the role the tests connect as)
    assert check.scope == IntegrityScope.LEDGER
    assert check.anchors["heads"] == heads_now()
    assert check.anchors["context"] == "integrity check"
    published = [json.loads(line) for line in (tmp_path / "anchors.jsonl").read_text().splitlines()]
    assert published == [check.anchors]
    assert verify_books().anchors == 1

    forge_first_row()
    later = closing.run_integrity_check()
    assert not later.ok
    assert {"hash_mismatch", "anchor_mismatch"} <= {p["code"] for p in later.problems}


def test_the_integrity_report_signs_and_prints_the_heads(
    played_day: dict[str, Any], public_key: str, staff: dict[str, Any], tmp_path: Path
) -> None:
    report = build_integrity_report()
    assert report.ledger["ok"], report.ledger["problems"]
    assert report.anchors["heads"] == heads_now()
    titles = [section.title for section in sections_of(report)]
    assert titles[-2:] == [anchors.HEADS_TITLE, anchors.SIGNATURE_TITLE]
    # The report's CSV download (a zip of one CSV per table) and its single-file form both carry it.
    download, _ = render(report, "csv")
    for name, data in (("integrity-download", download), ("integrity.csv", to_csv(report))):
        published = tmp_path / name
        published.write_bytes(data)
        out = StringIO()
        call_command("verify_anchors", str(published), "--public-key", public_key, stdout=out)
        assert "anchors OK: 1 document(s)" in out.getvalue()
    pdf, content_type = render(report, "pdf")
    assert content_type == "application/pdf"
    assert pdf.startswith(b"%PDF")

    client = Client()
    client.force_login(staff["auditor"])
    html = client.get(reverse("reports:integrity")).content.decode()
    assert "Chain heads seen, signed" in html
    assert heads_now()[0]["hash"] in html
    assert "The published chain heads still match (signed anchors)" in html

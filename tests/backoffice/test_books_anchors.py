"""Signed anchors published outside the database: every shift close and every integrity check records
the chain heads it saw, signed, and shows them in its page, CSV export and PDF; a shift close seals
its CSV export as the zip of one CSV per table every report downloads, the anchor two of its files;
``verify_anchors`` reads them back from the zip (and from the single CSV of a close sealed before the
zip); a later check compares the stored ones."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import zipfile
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from backoffice import closing
from backoffice.books import verify_books
from backoffice.exports import anchor_sections, export_file, render, sections_of
from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilters
from backoffice.reports.integrity import build_integrity_report
from ledger import anchors
from ledger.hashing import sha256_hex
from ledger.keys import new_signing_key
from ledger.models import ChainHead, IntegrityScope, JournalTransaction, ShiftClose
from ledger.shifts import Shift, ShiftCode
from tests.backoffice.test_exports import COLLECTION_FILES
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


ANCHOR_FILES = ["ledger-chain-heads-signed-anchor.csv", "anchor-signature.csv"]


def members(data: bytes) -> dict[str, list[list[str]]]:
    """Each file of a zip as its CSV rows."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {
            name: list(csv.reader(io.StringIO(archive.read(name).decode()))) for name in archive.namelist()
        }


def rezip(data: bytes, name: str, change: Any) -> bytes:
    """``data`` with the file ``name`` rewritten by ``change`` (its text in, new text out), the zip
    otherwise as it was: what someone altering a published copy would make."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with source, zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            content = source.read(info)
            archive.writestr(info, change(content.decode()).encode() if info.filename == name else content)
    return out.getvalue()


def verify_anchors(*args: str) -> tuple[bool, str, str]:
    """``manage.py verify_anchors ARGS``: (passed, stdout, stderr)."""
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_anchors", *args, stdout=out, stderr=err)
    except CommandError as exc:
        err.write(str(exc))
        return False, out.getvalue(), err.getvalue()
    return True, out.getvalue(), err.getvalue()


def test_a_shift_close_seals_the_zip_of_csvs_with_the_anchor_as_two_files(
    played_day: dict[str, Any], settings: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    settings.LEDGER_ANCHOR_DIR = str(tmp_path / "published")
    report = build_collection_report(ReportFilters.for_shift(played_day["shift"]))  # as the close sees it
    with django_capture_on_commit_callbacks(execute=True):
        close = closing.close_shift(shift=played_day["shift"]).close
    assert close.export_zip is not None
    assert close.export_csv == ""
    data = bytes(close.export_zip)
    assert data[:4] == b"PK\x03\x04"
    # Its checksum is of the zip's bytes, and the frozen report's meta names it.
    assert close.export_sha256 == sha256_hex(data)
    assert close.report["meta"]["export_sha256"] == close.export_sha256
    assert closing.frozen_matches_live(close)

    files = members(data)
    assert list(files) == [*COLLECTION_FILES, *ANCHOR_FILES]
    # One table per file: a header row, then rows; no "section" rows of the single-file form.
    tables = [*sections_of(report), *anchor_sections(close.anchors)]
    for name, section in zip(list(files)[1:], tables, strict=True):
        assert files[name][0] == section.headers, name
        assert len(files[name]) == 1 + len(section.rows), name
        assert not any(row and row[0] == "section" for row in files[name]), name
    index = {row[0]: row[1] for row in files["report.csv"][1:] if row[0] != "file"}
    assert index["report"] == "Collection report"
    assert index["filters"] == f"{played_day['shift'].business_date}, day shift, all tables"
    assert [row[1] for row in files["report.csv"] if row[0] == "file"][-2:] == [
        f"{ANCHOR_FILES[0]}: {anchors.HEADS_TITLE}",
        f"{ANCHOR_FILES[1]}: {anchors.SIGNATURE_TITLE}",
    ]
    heads, signature = files[ANCHOR_FILES[0]], files[ANCHOR_FILES[1]]
    assert heads == [anchors.HEADS_HEADERS, *([str(v) for v in r] for r in anchors.heads_rows(close.anchors))]
    assert signature[0] == anchors.SIGNATURE_HEADERS
    assert signature[1][-1] == close.anchors["signature"]
    # The same writer as every report's download: the same rows give the same bytes (the report
    # built now would differ: its "By shift" table shows the shift closed).
    assert export_file(report, extra_sections=anchor_sections(close.anchors))[0] == data
    # Published as before, once the close is committed.
    published = (tmp_path / "published" / "anchors.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in published] == [close.anchors]


@pytest.mark.tamper
def test_a_shift_close_signs_the_heads_into_its_record_and_sealed_zip(
    played_day: dict[str, Any], public_key: str, tmp_path: Path
) -> None:
    close = closing.close_shift(shift=played_day["shift"]).close
    assert close.anchors["heads"] == heads_now()
    assert close.anchors["context"] == f"shift close {played_day['shift']}"
    assert anchors.compare([("close", close.anchors)]).ok

    published = tmp_path / "shift.zip"
    published.write_bytes(bytes(close.export_zip))
    ok, out, _ = verify_anchors(str(published), "--public-key", public_key)
    assert ok
    assert "anchors OK: 1 document(s), 1 published head(s)" in out

    forge_first_row()
    ok, _, err = verify_anchors(str(published), "--public-key", public_key)
    assert not ok
    assert "[anchor_mismatch]" in err


def test_verify_anchors_fails_on_an_altered_file_of_a_published_zip(
    played_day: dict[str, Any], public_key: str, tmp_path: Path
) -> None:
    close = closing.close_shift(shift=played_day["shift"]).close
    data = bytes(close.export_zip)
    published = tmp_path / "shift.zip"
    published.write_bytes(data)
    assert verify_anchors(str(published), "--public-key", public_key)[0]
    call_command("verify_ledger", "--anchors", str(published), "--public-key", public_key, stdout=StringIO())

    # A head's hash changed in the heads file: the signature no longer verifies.
    head_hash = close.anchors["heads"][0]["hash"]
    altered = rezip(data, ANCHOR_FILES[0], lambda text: text.replace(head_hash, "f" * 64))
    assert altered != data
    published.write_bytes(altered)
    ok, _, err = verify_anchors(str(published), "--public-key", public_key)
    assert not ok
    assert "[anchor_signature_invalid]" in err
    with pytest.raises(CommandError, match="ledger verification failed"):
        call_command(
            "verify_ledger",
            "--anchors",
            str(published),
            "--public-key",
            public_key,
            stdout=StringIO(),
            stderr=StringIO(),
        )

    # The signing time changed in the signature file: the same.
    at = close.anchors["at"]
    published.write_bytes(
        rezip(data, ANCHOR_FILES[1], lambda text: text.replace(at, at.replace(":", "-", 1)))
    )
    ok, _, err = verify_anchors(str(published), "--public-key", public_key)
    assert not ok
    assert "[anchor_signature_invalid]" in err

    # The anchor files left out: nothing to check is a failure, not a pass.
    published.write_bytes(rezip(data, ANCHOR_FILES[1], lambda text: "format\r\n"))
    ok, _, err = verify_anchors(str(published), "--public-key", public_key)
    assert not ok
    assert "no 'Anchor signature' table in the zip" in err

    # A byte of the heads file changed inside the zip, its checksum left: the zip can't be read.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        heads_file = archive.getinfo(ANCHOR_FILES[0])
    start = heads_file.header_offset + 30 + len(heads_file.filename.encode()) + len(heads_file.extra)
    broken = bytearray(data)
    broken[start + heads_file.compress_size // 2] ^= 0x55
    published.write_bytes(bytes(broken))
    ok, _, err = verify_anchors(str(published), "--public-key", public_key)
    assert not ok
    assert "the zip can't be read" in err


def old_style_csv(document: dict[str, Any]) -> str:
    """A shift close's sealed record as closes wrote it before the zip: the report's head, then
    every table under a ``section`` row, the signed anchor last."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows(
        [
            ["report", "Collection report"],
            ["filters", "an old shift, all tables"],
            ["software", "casino 0.1.0"],
            [],
            ["section", "Totals"],
            ["hands", "fees_collected_dollars"],
            [3, "7.50"],
            [],
            ["section", anchors.HEADS_TITLE],
            anchors.HEADS_HEADERS,
            *anchors.heads_rows(document),
            [],
            ["section", anchors.SIGNATURE_TITLE],
            anchors.SIGNATURE_HEADERS,
            *anchors.signature_rows(document),
        ]
    )
    return buffer.getvalue()


def test_a_close_sealed_as_one_csv_before_the_zip_still_verifies_and_downloads(
    played_day: dict[str, Any], public_key: str, staff: dict[str, Any], tmp_path: Path
) -> None:
    shift = played_day["shift"]
    document = anchors.sign(
        anchors.current_heads(), context=f"shift close {shift}", at=dt.datetime.now(dt.UTC)
    )
    text = old_style_csv(document)
    old = ShiftClose.objects.create(
        shift_date=shift.business_date,
        shift_code=shift.code.value,
        report={},
        report_sha256="0" * 64,
        export_csv=text,
        export_sha256=sha256_hex(text.encode()),
        software_version="casino 0.1.0",
        anchors=document,
    )
    assert old.export_zip is None
    assert old.sealed_export() == (
        text.encode(),
        "text/csv; charset=utf-8",
        f"shift-close-{shift.business_date}_{shift.code.value}.csv",
    )
    published = tmp_path / "old-close.csv"
    published.write_text(text)
    ok, out, _ = verify_anchors(str(published), "--stored", "--public-key", public_key)
    assert ok, out
    assert "anchors OK: 2 document(s)" in out
    # Altered, it fails as it always did.
    published.write_text(text.replace(document["heads"][0]["hash"], "0" * 64))
    assert not verify_anchors(str(published), "--public-key", public_key)[0]

    client = Client()
    client.force_login(staff["auditor"])
    download = client.get(reverse("reports:shift", args=[old.pk]), {"format": "csv"})
    assert download["Content-Type"] == "text/csv; charset=utf-8"
    assert download.content == text.encode()
    assert download["X-Content-SHA256"] == old.export_sha256
    assert (
        "one CSV, as closes were sealed before the zip"
        in client.get(reverse("reports:shift", args=[old.pk])).content.decode()
    )


def test_the_shift_page_shows_the_signed_heads_and_downloads_the_sealed_zip(
    played_day: dict[str, Any], staff: dict[str, Any]
) -> None:
    close = closing.close_shift(shift=played_day["shift"]).close
    client = Client()
    client.force_login(staff["auditor"])
    html = client.get(reverse("reports:shift", args=[close.pk])).content.decode()
    assert "Ledger chain heads at the close, signed" in html
    assert close.anchors["signature"] in html
    assert close.anchors["heads"][0]["hash"] in html
    assert "a zip of one CSV per table, the signed chain heads two of them" in html
    # The page's download is the sealed zip, as stored, under the checksum the close publishes.
    download = client.get(reverse("reports:shift", args=[close.pk]), {"format": "csv"})
    assert download["Content-Type"] == "application/zip"
    name = f"shift-close-{played_day['shift'].business_date}_day.zip"
    assert download["Content-Disposition"] == f'attachment; filename="{name}"'
    assert download.content == bytes(close.export_zip)
    assert download["X-Content-SHA256"] == close.export_sha256 == sha256_hex(download.content)


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
    played_day: dict[str, Any],
    public_key: str,
    staff: dict[str, Any],
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    report = build_integrity_report()
    assert report.ledger["ok"], report.ledger["problems"]
    assert report.anchors["heads"] == heads_now()
    titles = [section.title for section in sections_of(report)]
    assert titles[-2:] == [anchors.HEADS_TITLE, anchors.SIGNATURE_TITLE]
    # The report's CSV download (a zip of one CSV per table) carries it.
    download, _ = render(report, "csv")
    published = tmp_path / "integrity-download"
    published.write_bytes(download)
    out = StringIO()
    call_command("verify_anchors", str(published), "--public-key", public_key, stdout=out)
    assert "anchors OK: 1 document(s)" in out.getvalue()
    pdf, content_type = render(report, "pdf")
    assert content_type == "application/pdf"
    assert pdf.startswith(b"%PDF")

    # The page shows the latest stored check (it verifies nothing in the request): the full one,
    # as the worker runs it when asked from the page.
    client = Client()
    client.force_login(staff["auditor"])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("reports:integrity"))
    html = client.get(reverse("reports:integrity")).content.decode()
    assert "Chain heads seen, signed" in html
    assert heads_now()[0]["hash"] in html

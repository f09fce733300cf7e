"""Signed anchors (``ledger.anchors``): chain heads signed with the anchor key, read back from JSON or
a report's CSV, and compared with the ledger (``manage.py verify_anchors``); the per-scope latest
integrity failure."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from ledger import anchors, selectors, services
from ledger.keys import new_signing_key, parse_public_keys
from ledger.models import IntegrityCheck, IntegrityScope, JournalTransaction
from tables.models import Player, Table
from tests.ledger.forgery import rechain, sql, triggers_off

pytestmark = pytest.mark.django_db

AT = dt.datetime(2030, 1, 2, 16, 0, tzinfo=dt.UTC)


@pytest.fixture
def signing(settings: Any) -> str:
    """An anchor key of the test's own; returns its public key as ``id:base64``."""
    private, public = new_signing_key()
    settings.LEDGER_ANCHOR_SIGNING_KEY = f"a1:{private}"
    return f"a1:{public}"


@pytest.fixture
def two_chains(table: Table, other_table: Table, alice: Player, cashier: Any) -> list[JournalTransaction]:
    return [
        services.buy_in(table=table, player=alice, amount=500, user=cashier, idempotency_key="a").transaction,
        services.buy_in(table=table, player=alice, amount=500, user=cashier, idempotency_key="b").transaction,
        services.buy_in(
            table=other_table, player=alice, amount=500, user=cashier, idempotency_key="c"
        ).transaction,
    ]


def signed_now() -> dict[str, Any]:
    return anchors.sign(anchors.current_heads(), context="test", at=AT)


def test_a_signed_anchor_matches_the_ledger(signing: str, two_chains: list[JournalTransaction]) -> None:
    document = signed_now()
    assert document["key_id"] == "a1"
    assert document["at"] == "2030-01-02T16:00:00.000000+00:00"
    assert [(h["chain"], h["sequence"]) for h in document["heads"]] == sorted(
        [(two_chains[1].chain, 2), (two_chains[2].chain, 1)]
    )
    result = anchors.compare([("doc", document)])
    assert result.ok, result.problems
    assert (result.documents, result.heads) == (1, 2)


def test_altered_or_foreign_anchors_are_refused(
    signing: str, two_chains: list[JournalTransaction], settings: Any
) -> None:
    document = signed_now()
    altered = json.loads(json.dumps(document))
    altered["heads"][0]["hash"] = "0" * 64
    foreign = {**document, "key_id": "zz"}
    malformed = {**document, "heads": [{"chain": "x", "sequence": "1", "hash": "h"}]}
    result = anchors.compare([("altered", altered), ("foreign", foreign), ("malformed", malformed)])
    assert [(p.code, p.message.split(":")[0]) for p in result.problems] == [
        ("anchor_signature_invalid", "altered"),
        ("anchor_unknown_key", "foreign"),
        ("anchor_malformed", "malformed"),
    ]
    assert result.heads == 0  # nothing unverified is compared
    # A document signed by another key verifies only where that key is trusted.
    other_private, other_public = new_signing_key()
    settings.LEDGER_ANCHOR_SIGNING_KEY = f"a2:{other_private}"
    second = signed_now()
    trusted = parse_public_keys(signing, what="test")
    assert [p.code for p in anchors.compare([("second", second)], public_keys=trusted).problems] == [
        "anchor_unknown_key"
    ]
    trusted = parse_public_keys(f"a2:{other_public}", what="test")
    assert anchors.compare([("second", second)], public_keys=trusted).ok


@pytest.mark.tamper
def test_a_rewritten_or_shortened_chain_no_longer_matches(
    signing: str, two_chains: list[JournalTransaction]
) -> None:
    document = signed_now()
    first, last, elsewhere = two_chains
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = 'edited' WHERE id = %s", [first.pk])
        rechain(first.chain, key=b"k" * 32)  # any key: even the right one
        sql("DELETE FROM ledger_entry WHERE transaction_id = %s", [elsewhere.pk])
        sql("DELETE FROM ledger_journaltransaction WHERE id = %s", [elsewhere.pk])
    result = anchors.compare([("before", document)])
    assert sorted((p.code, p.chain) for p in result.problems) == sorted(
        [("anchor_mismatch", last.chain), ("anchor_missing", elsewhere.chain)]
    )
    mismatch = next(p for p in result.problems if p.code == "anchor_mismatch")
    assert mismatch.transaction_id == last.pk


@pytest.mark.tamper
def test_two_signed_anchors_that_disagree_are_a_conflict(
    signing: str, two_chains: list[JournalTransaction]
) -> None:
    before = signed_now()
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = 'edited' WHERE id = %s", [two_chains[0].pk])
        rechain(two_chains[0].chain, key=b"k" * 32)
    after = signed_now()  # an anchor signed over the rewritten chain
    assert "anchor_conflict" in {
        p.code for p in anchors.compare([("before", before), ("after", after)]).problems
    }


def test_verify_anchors_reads_json_json_lines_and_stdin(
    signing: str, two_chains: list[JournalTransaction], tmp_path: Path
) -> None:
    document = signed_now()
    single = tmp_path / "one.json"
    single.write_text(json.dumps(document))
    lines = tmp_path / "anchors.jsonl"
    lines.write_text(json.dumps(document) + "\n" + json.dumps(document) + "\n")
    out = StringIO()
    call_command("verify_anchors", str(single), str(lines), "--public-key", signing, stdout=out)
    assert out.getvalue().strip() == "anchors OK: 3 document(s), 2 published head(s) checked"
    out = StringIO()
    call_command("verify_anchors", "-", "--json", stdin=StringIO(json.dumps([document])), stdout=out)
    assert json.loads(out.getvalue())["ok"] is True


def test_verify_anchors_refuses_what_it_cannot_read(signing: str, tmp_path: Path) -> None:
    junk = tmp_path / "junk.csv"
    junk.write_text("report,Something else\r\n")
    with pytest.raises(CommandError, match="no 'Anchor signature' section"):
        call_command("verify_anchors", str(junk))
    with pytest.raises(CommandError, match="can't be read"):
        call_command("verify_anchors", str(tmp_path / "missing.csv"))
    with pytest.raises(CommandError, match="no anchors to check"):
        call_command("verify_anchors")
    with pytest.raises(CommandError, match="not a 32-byte Ed25519 public key"):
        call_command("verify_anchors", "--stored", "--public-key", "a1:AAAA")


def test_an_anchor_is_appended_to_the_anchor_directory(
    signing: str, two_chains: list[JournalTransaction], settings: Any, tmp_path: Path
) -> None:
    settings.LEDGER_ANCHOR_DIR = str(tmp_path / "anchors")
    anchors.publish(signed_now())
    anchors.publish(signed_now())
    path = tmp_path / "anchors" / "anchors.jsonl"
    assert [json.loads(line)["context"] for line in path.read_text().splitlines()] == ["test", "test"]
    assert anchors.compare(anchors.parse_published(path.read_text())).ok


def test_latest_integrity_failure_looks_at_each_scope(db: None) -> None:
    def check(scope: IntegrityScope, ok: bool, minutes: int) -> IntegrityCheck:
        at = timezone.now() - dt.timedelta(minutes=minutes)
        return IntegrityCheck.objects.create(
            started_at=at, finished_at=at, scope=scope, ok=ok, software_version="test"
        )

    assert selectors.latest_integrity_failure() is None
    failed_replay = check(IntegrityScope.REPLAY, False, 30)
    check(IntegrityScope.LEDGER, True, 10)
    # A passing books check after it doesn't hide the failed replay audit.
    assert selectors.latest_integrity_failure() == failed_replay
    failed_books = check(IntegrityScope.LEDGER, False, 5)
    assert selectors.latest_integrity_failure() == failed_books
    check(IntegrityScope.REPLAY, True, 1)
    check(IntegrityScope.LEDGER, True, 0)
    assert selectors.latest_integrity_failure() is None

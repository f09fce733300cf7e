"""The keyed chain: every row's hash is an HMAC under a key kept outside the database (``ledger.keys``),
with the key's id on the row. Rotation, an unknown key, a downgrade to the unkeyed format, the keys'
settings and system checks, and the settlement's input digest in the chained request."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
from io import StringIO
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from ledger import services
from ledger.errors import IdempotencyConflict, InvalidPosting
from ledger.hashing import (
    CONTENT_VERSION,
    UNKEYED_VERSION,
    canonical_json,
    transaction_content,
    transaction_hash,
)
from ledger.keys import DEV_KEY_ID, anchor_keys, chain_keys, check_keys
from ledger.models import JournalTransaction
from ledger.verification import verify_ledger
from tables.models import Hand, Player, Table
from tests.ledger.forgery import rechain, sql, triggers_off

pytestmark = pytest.mark.django_db

K1 = base64.b64encode(b"1" * 32).decode()
K2 = base64.b64encode(b"2" * 32).decode()


def codes(report: Any) -> set[str]:
    return {problem.code for problem in report.problems}


def content_of(txn: JournalTransaction, key_id: str) -> dict[str, Any]:
    return transaction_content(
        chain=txn.chain,
        sequence=txn.sequence,
        prev_hash=txn.prev_hash,
        kind=txn.kind,
        table_id=txn.table_id,
        hand_id=txn.hand_id,
        created_by_id=txn.created_by_id,
        created_at=txn.created_at,
        memo=txn.memo,
        idempotency_key=txn.idempotency_key,
        request_digest=txn.request_digest,
        reverses_id=txn.reverses_id,
        key_id=key_id,
        entries=txn.entries.values_list("line", "account_id", "amount"),
    )


def test_a_row_is_an_hmac_under_the_current_key(
    settings: Any, table: Table, alice: Player, cashier: Any
) -> None:
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k1:{K1}", "k1"
    txn = JournalTransaction.objects.get(
        pk=services.buy_in(
            table=table, player=alice, amount=100, user=cashier, idempotency_key="a"
        ).transaction.pk
    )
    assert txn.key_id == "k1"
    content = content_of(txn, "k1")
    assert (content["v"], content["key_id"]) == (CONTENT_VERSION, "k1")
    expected = hmac.new(base64.b64decode(K1), canonical_json(content), hashlib.sha256).hexdigest()
    assert txn.hash == expected
    # Not the plain sha256 of the same content, nor an HMAC under another key.
    assert txn.hash != hashlib.sha256(canonical_json(content)).hexdigest()
    assert txn.hash != transaction_hash(content, base64.b64decode(K2))


def test_the_format_versions_do_not_pass_for_each_other(table: Table, alice: Player, cashier: Any) -> None:
    txn = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="a"
    ).transaction
    keyed, unkeyed = content_of(txn, txn.key_id), content_of(txn, "")
    assert unkeyed["v"] == UNKEYED_VERSION
    assert "key_id" not in unkeyed
    with pytest.raises(ValueError, match="needs its chain key"):
        transaction_hash(keyed)
    with pytest.raises(ValueError, match="without a key"):
        transaction_hash(unkeyed, b"k" * 32)


def test_rows_under_rotated_keys_all_verify(settings: Any, table: Table, alice: Player, cashier: Any) -> None:
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k1:{K1}", "k1"
    first = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="a"
    ).transaction
    # Rotation: the new key first, the old one kept, LEDGER_KEY_ID on the new one.
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k2:{K2},k1:{K1}", "k2"
    second = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="b"
    ).transaction
    assert (first.key_id, second.key_id) == ("k1", "k2")
    assert second.prev_hash == first.hash
    report = verify_ledger()
    assert report.ok, report.problems

    # Without k1 its rows can't be checked: named, not a crash, and not called altered.
    settings.LEDGER_KEYS = f"k2:{K2}"
    report = verify_ledger()
    assert [(p.code, p.transaction_id) for p in report.problems] == [("unknown_key", first.pk)]
    assert "'k1', which is not configured" in report.problems[0].message


def test_the_development_key_is_not_trusted_once_real_keys_are_set(
    settings: Any, table: Table, alice: Player, cashier: Any
) -> None:
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = "", ""
    txn = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="a"
    ).transaction
    assert txn.key_id == DEV_KEY_ID
    assert verify_ledger().ok
    settings.LEDGER_KEYS = f"k1:{K1}"
    assert codes(verify_ledger()) == {"unknown_key"}


@pytest.mark.tamper
def test_an_unkeyed_row_after_keyed_ones_is_a_downgrade(table: Table, alice: Player, cashier: Any) -> None:
    services.buy_in(table=table, player=alice, amount=100, user=cashier, idempotency_key="a")
    last = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="b"
    ).transaction
    # The last row rewritten in format 1 (no key needed), its head moved along.
    content = content_of(last, "")
    new_hash = transaction_hash(content)
    with triggers_off():
        sql(
            "UPDATE ledger_journaltransaction SET hash = %s, key_id = '' WHERE id = %s",
            [new_hash, last.pk],
        )
        sql("UPDATE ledger_chainhead SET hash = %s WHERE chain = %s", [new_hash, last.chain])
    report = verify_ledger()
    assert [(p.code, p.transaction_id) for p in report.problems] == [("hash_downgraded", last.pk)]


@pytest.mark.tamper
def test_legacy_unkeyed_chains_verify_unless_turned_off(
    settings: Any, table: Table, alice: Player, cashier: Any
) -> None:
    """Rows from before the keyed chain (format 1, plain sha256) keep verifying; a room with none
    turns LEDGER_ALLOW_UNKEYED off, and then a whole chain rewritten unkeyed is named."""
    services.buy_in(table=table, player=alice, amount=100, user=cashier, idempotency_key="a")
    services.buy_in(table=table, player=alice, amount=100, user=cashier, idempotency_key="b")
    with triggers_off():
        rechain(f"table:{table.pk}", key=None)
    assert set(JournalTransaction.objects.values_list("key_id", flat=True)) == {""}
    assert verify_ledger().ok
    # New rows after them are keyed, and the chain goes on verifying.
    services.buy_in(table=table, player=alice, amount=100, user=cashier, idempotency_key="c")
    assert verify_ledger().ok
    settings.LEDGER_ALLOW_UNKEYED = False
    assert [p.code for p in verify_ledger().problems] == ["unkeyed_row", "unkeyed_row"]


def test_key_settings(settings: Any) -> None:
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k2:{K2},k1:{K1}", "k2"
    assert chain_keys().current == ("k2", b"2" * 32)
    assert set(chain_keys().keys) == {"k1", "k2"}
    bad = [
        ({"LEDGER_KEYS": "k1"}, "is not id:<base64>"),
        ({"LEDGER_KEYS": "k1:***"}, "is not base64"),
        ({"LEDGER_KEYS": f"k1:{base64.b64encode(b'short').decode()}"}, "at least 32 are needed"),
        ({"LEDGER_KEYS": f"k1:{K1},k2:{K2}", "LEDGER_KEY_ID": ""}, "LEDGER_KEY_ID must name"),
        ({"LEDGER_KEYS": f"k1:{K1}", "LEDGER_KEY_ID": "k9"}, "is not one of LEDGER_KEYS"),
        ({"LEDGER_KEYS": f"k1:{K1},k1:{K2}"}, "given twice"),
        ({"LEDGER_KEYS": f"bad id:{K1}"}, "must be 1-32 letters"),
    ]
    for values, message in bad:
        for name, value in {"LEDGER_KEYS": "", "LEDGER_KEY_ID": "", **values}.items():
            setattr(settings, name, value)
        with pytest.raises(ImproperlyConfigured, match=message):
            chain_keys()


def test_keys_from_a_file(settings: Any, tmp_path: Any) -> None:
    path = tmp_path / "ledger.keys"
    path.write_text(f"# rotated 2030-01-02\nk2:{K2}\nk1:{K1}  # the first key\n")
    settings.LEDGER_KEYS, settings.LEDGER_KEYS_FILE, settings.LEDGER_KEY_ID = "", str(path), "k2"
    assert chain_keys().current == ("k2", b"2" * 32)
    assert chain_keys().keys["k1"] == b"1" * 32
    settings.LEDGER_KEYS_FILE = str(tmp_path / "missing")
    with pytest.raises(ImproperlyConfigured, match="can't be read"):
        chain_keys()


def test_system_checks_refuse_development_keys_when_debug_is_off(settings: Any) -> None:
    settings.DEBUG = False
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID, settings.LEDGER_ANCHOR_SIGNING_KEY = "", "", ""
    assert {m.id for m in check_keys()} == {"ledger.E001", "ledger.E002"}
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k1:{K1}", "k1"
    seed = base64.b64encode(b"s" * 32).decode()
    settings.LEDGER_ANCHOR_SIGNING_KEY = f"a1:{seed}"
    assert check_keys() == []
    settings.LEDGER_KEYS = "k1:nope"
    assert [m.id for m in check_keys()] == ["ledger.E003"]
    settings.DEBUG = True
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = "", ""
    assert check_keys() == []  # the local demo runs on the development keys


def test_new_ledger_key_prints_settings_that_work(settings: Any) -> None:
    out = StringIO()
    call_command("new_ledger_key", "--id", "k7", stdout=out)
    keys_line, id_line = out.getvalue().splitlines()
    entry = keys_line.removeprefix('LEDGER_KEYS="').split(",")[0]
    assert id_line == "LEDGER_KEY_ID=k7"
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = entry, "k7"
    assert chain_keys().current[0] == "k7"
    assert len(chain_keys().current[1]) == 32

    out = StringIO()
    call_command("new_ledger_key", "--anchor", "--id", "a7", stdout=out)
    signing, public = out.getvalue().splitlines()
    settings.LEDGER_ANCHOR_SIGNING_KEY = signing.removeprefix("LEDGER_ANCHOR_SIGNING_KEY=")
    settings.LEDGER_ANCHOR_PUBLIC_KEYS = public.rsplit(" ", 1)[-1]
    assert anchor_keys().signing_id == "a7"  # its own public key agrees with the one printed


def test_the_settlements_input_digest_is_part_of_its_request(
    table: Table, hand: Hand, alice: Player, bob: Player, cashier: Any
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key="a")
    services.buy_in(table=table, player=bob, amount=1_000, user=cashier, idempotency_key="b")
    digest = hashlib.sha256(b"engine input").hexdigest()
    first = services.award_pot(
        table=table,
        hand=hand,
        put_ins=[(alice, 100), (bob, 100)],
        awards=[(alice, 200)],
        user=cashier,
        idempotency_key="settle",
        input_digest=digest,
    )
    assert first is not None
    again = services.award_pot(
        table=table,
        hand=hand,
        put_ins=[(alice, 100), (bob, 100)],
        awards=[(alice, 200)],
        user=cashier,
        idempotency_key="settle",
        input_digest=digest,
    )
    assert again is not None
    assert (again.transaction.pk, again.replayed) == (first.transaction.pk, True)
    with pytest.raises(IdempotencyConflict):  # the same lines read from another input
        services.award_pot(
            table=table,
            hand=hand,
            put_ins=[(alice, 100), (bob, 100)],
            awards=[(alice, 200)],
            user=cashier,
            idempotency_key="settle",
            input_digest=hashlib.sha256(b"another input").hexdigest(),
        )
    for wrong in ("abc", "A" * 64, 12):
        with pytest.raises(InvalidPosting, match="input_digest"):
            services.post_payments(
                table=table,
                hand=hand,
                payments=[(alice, bob, 0)],
                user=cashier,
                idempotency_key="pay",
                input_digest=wrong,  # type: ignore[arg-type]
            )


def test_posting_stays_cheap(settings: Any) -> None:
    """The key is parsed once (cached), not on every posting."""
    settings.LEDGER_KEYS, settings.LEDGER_KEY_ID = f"k1:{K1}", "k1"
    first = chain_keys()
    assert chain_keys() is first
    start = dt.datetime.now()
    content = {"v": CONTENT_VERSION, "key_id": "k1", "entries": [[1, 2, 3]] * 20}
    for _ in range(2000):
        transaction_hash(content, first.current[1])
    assert (dt.datetime.now() - start).total_seconds() < 1.0

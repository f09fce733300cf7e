"""The forgery of issue #17, done with the code but without the server's secrets, is caught by the
commands the project ships (``manage.py verify_ledger`` and ``manage.py verify_anchors``).

The tester's steps: as a database superuser, with the triggers bypassed, move 500 cents between two
players inside a settled pot, fix both cached balances, recompute every hash of the chain with
``ledger.hashing``. Before the keyed chain, ``verify_ledger`` said "ledger OK". Now the chain key is
not in the database (the test's server key ``t1``); the attacker hashes with what they can get: the
public development key, their own defaults, or the unkeyed format 1.
"""

from __future__ import annotations

import base64
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from backoffice.closing import run_integrity_check
from backoffice.exports import render
from backoffice.reports.integrity import build_integrity_report
from ledger.keys import DEV_KEY_ID, chain_keys, new_signing_key
from ledger.models import Account, AccountKind, JournalTransaction, TransactionKind
from tables.models import Hand, HandResult, Player, Table
from tests.ledger.forgery import move_between_players, rechain, sql, triggers_off

# Acts as an attacker with the database owner's rights (docs/ledger.md): see tests/conftest.py, "tamper".
pytestmark = [pytest.mark.django_db, pytest.mark.tamper]

SERVER_KEY = base64.b64encode(bytes(range(32, 64))).decode()
NO_SECRETS = {"LEDGER_KEYS": "", "LEDGER_KEY_ID": "", "LEDGER_ANCHOR_SIGNING_KEY": ""}


@pytest.fixture
def server_secrets(settings: Any) -> dict[str, str]:
    """The server's secrets, from its environment (here: the test's settings), not the database."""
    private, public = new_signing_key()
    settings.LEDGER_KEYS = f"t1:{SERVER_KEY}"
    settings.LEDGER_KEY_ID = "t1"
    settings.LEDGER_ANCHOR_SIGNING_KEY = f"a1:{private}"
    return {"public_key": f"a1:{public}"}


@pytest.fixture
def settled_pot(
    server_secrets: dict[str, str],
    table_with_players: Any,
    deal_hand: Any,
    settle_hand: Any,
    tmp_path: Path,
) -> dict[str, Any]:
    """Two settled hands at a table; an integrity check stored (with its signed heads) and its
    report's CSV kept outside the database, as a regulator or an auditor would."""
    table, _players = table_with_players(3)
    hand = settle_hand(deal_hand(table))
    settle_hand(deal_hand(table))  # the forged transaction is not the chain's last
    check = run_integrity_check()
    assert check.problems == []  # (its guards' verdict depends on the role the tests connect as)
    data, _content_type = render(build_integrity_report(), "csv")  # the report's CSV download
    published = tmp_path / "integrity-before.csv"
    published.write_bytes(data)
    settlement = HandResult.objects.get(hand=hand).settlement
    assert settlement is not None
    assert settlement.kind == TransactionKind.POT_AWARD
    return {"table": table, "hand": hand, "settlement": settlement, "published": published, "check": check}


def _winner_and_loser(settlement: JournalTransaction) -> tuple[Account, Account]:
    lines = list(settlement.entries.select_related("account").order_by("line"))
    players = [e for e in lines if e.account.kind == AccountKind.PLAYER_CHIPS]
    winner = next(e.account for e in players if e.amount > 0)
    loser = next(e.account for e in players if e.amount < 0 and e.account_id != winner.pk)
    return winner, loser


def _forge(
    settlement: JournalTransaction, *, key: bytes | None, key_id: str | None = None
) -> tuple[int, int]:
    """The tester's forgery; returns the (winner, loser) balances after it."""
    winner, loser = _winner_and_loser(settlement)
    with triggers_off():
        move_between_players(settlement, cents=500, taker=winner.pk, giver=loser.pk)
        rechain(settlement.chain, key=key, key_id=key_id)
    winner.refresh_from_db()
    loser.refresh_from_db()
    return winner.balance, loser.balance


def _attackers_key() -> tuple[str, bytes]:
    """What the attacker's copy of the code hashes with: no LEDGER_KEYS in their environment."""
    with override_settings(**NO_SECRETS):
        return chain_keys().current


def verify_ledger_command(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="ledger verification failed"):
        call_command("verify_ledger", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def codes_in(stderr: str) -> set[str]:
    return {line[1 : line.index("]")] for line in stderr.splitlines() if line.startswith("[")}


def test_the_issues_forgery_is_caught_by_verify_ledger(settled_pot: dict[str, Any]) -> None:
    settlement: JournalTransaction = settled_pot["settlement"]
    winner, loser = _winner_and_loser(settlement)
    before = (winner.balance, loser.balance)
    key_id, guessed = _attackers_key()
    assert key_id == DEV_KEY_ID  # the public development key: all the attacker's code can offer

    after = _forge(settlement, key=guessed, key_id="t1")  # rows still claim the server's key

    assert after == (before[0] + 500, before[1] - 500)
    out, err = verify_ledger_command()
    assert "FAILED" in out
    found = codes_in(err)
    # Every other check of the ledger passes, as in the issue: only the keyed hashes give it away...
    assert (
        found & {"balance_mismatch", "unbalanced", "chain_broken", "head_mismatch", "pot_not_cleared"}
        == set()
    )
    assert f"[hash_mismatch] transaction {settlement.pk} " in err
    # ... every row of the rewritten chain fails, not only the forged one ...
    chain_rows = JournalTransaction.objects.filter(chain=settlement.chain).count()
    assert err.count("[hash_mismatch]") == chain_rows
    # ... and the head published before the forgery (the chain's last row then, which links to
    # the forged one), and the hand's own reading, disagree too.
    head = JournalTransaction.objects.filter(chain=settlement.chain).order_by("-sequence").first()
    assert head is not None
    assert head.sequence > settlement.sequence
    assert f"[anchor_mismatch] transaction {head.pk} " in err
    assert f"[settlement_mismatch] hand {settled_pot['hand'].pk} " in err


def test_the_published_csv_alone_catches_it_with_only_the_public_key(
    settled_pot: dict[str, Any], server_secrets: dict[str, str]
) -> None:
    published: Path = settled_pot["published"]
    public_key = server_secrets["public_key"]
    with override_settings(**NO_SECRETS):  # a regulator: a copy of the database and the public key
        out = StringIO()
        call_command("verify_anchors", str(published), "--public-key", public_key, stdout=out)
        assert "anchors OK" in out.getvalue()
        _, guessed = _attackers_key()
        _forge(settled_pot["settlement"], key=guessed)
        out, err = StringIO(), StringIO()
        with pytest.raises(CommandError, match="anchor verification failed"):
            call_command("verify_anchors", str(published), "--public-key", public_key, stdout=out, stderr=err)
    assert "[anchor_mismatch] transaction " in err.getvalue()
    assert f"than {published} #1 published" in err.getvalue()


def test_the_attackers_own_key_id_is_an_unknown_key(settled_pot: dict[str, Any]) -> None:
    """Hashing with the attacker's defaults writes their key id: the server doesn't trust it."""
    key_id, guessed = _attackers_key()
    _forge(settled_pot["settlement"], key=guessed, key_id=key_id)
    _, err = verify_ledger_command()
    assert "unknown_key" in codes_in(err)
    assert f"hashed under key '{DEV_KEY_ID}', which is not configured" in err
    assert "anchor_mismatch" in codes_in(err)


def test_a_downgrade_to_unkeyed_hashes_is_caught(settled_pot: dict[str, Any], settings: Any) -> None:
    """Rewriting the whole chain in the old, unkeyed format needs no key: anchors and the hand's
    reading catch it, and with LEDGER_ALLOW_UNKEYED off (nothing was ever posted unkeyed) so does
    the chain."""
    _forge(settled_pot["settlement"], key=None)
    _, err = verify_ledger_command()
    assert "hash_mismatch" not in codes_in(err)  # sha256 of its content: as format 1 allows
    assert {"anchor_mismatch", "settlement_mismatch"} <= codes_in(err)
    settings.LEDGER_ALLOW_UNKEYED = False
    _, err = verify_ledger_command()
    assert "unkeyed_row" in codes_in(err)


def test_the_key_holders_forgery_is_caught_by_anchors_published_before(settled_pot: dict[str, Any]) -> None:
    """Someone with the server's environment too can recompute valid HMACs: the heads published
    before the rewrite still catch it."""
    key_id, key = chain_keys().current
    _forge(settled_pot["settlement"], key=key, key_id=key_id)
    _, err = verify_ledger_command("--anchors", str(settled_pot["published"]))
    found = codes_in(err)
    assert "hash_mismatch" not in found
    assert "anchor_mismatch" in found
    # Both copies are named: the one stored in the database and the one kept outside it.
    assert f"integrity check {settled_pot['check'].pk}, {settled_pot['published']} #1 published" in err


def test_deleting_the_stored_anchors_leaves_the_published_copy(settled_pot: dict[str, Any]) -> None:
    """The stored integrity check goes with the database; the copy outside it doesn't."""
    key_id, key = chain_keys().current
    _forge(settled_pot["settlement"], key=key, key_id=key_id)
    with triggers_off():
        sql("DELETE FROM ledger_integritycheck", [])
    _, err = verify_ledger_command("--anchors", str(settled_pot["published"]))
    assert "anchor_mismatch" in codes_in(err)


@pytest.mark.postgres
def test_postgres_superuser_with_replication_role(settled_pot: dict[str, Any]) -> None:
    """On PostgreSQL, literally as the tester did it: SET session_replication_role = replica."""
    settlement: JournalTransaction = settled_pot["settlement"]
    winner, loser = _winner_and_loser(settlement)
    _, guessed = _attackers_key()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET session_replication_role = replica")
        try:
            move_between_players(settlement, cents=500, taker=winner.pk, giver=loser.pk)
            rechain(settlement.chain, key=guessed)
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")
    _, err = verify_ledger_command()
    assert {"hash_mismatch", "anchor_mismatch", "settlement_mismatch"} <= codes_in(err)


def test_the_sound_books_pass(settled_pot: dict[str, Any]) -> None:
    out = StringIO()
    call_command("verify_ledger", stdout=out)
    assert out.getvalue().startswith("ledger OK: 1 chain(s)")
    assert "2 hand(s), 1 anchor(s)" in out.getvalue()
    table: Table = settled_pot["table"]
    assert Hand.objects.filter(table=table).count() == 2
    assert Player.objects.exists()

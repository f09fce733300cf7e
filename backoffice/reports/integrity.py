"""The integrity report: ``backoffice.books.verify_books()`` (entries sum to zero, every balance
equals its entries, the keyed hash chains verify, the published anchors still match, every settled
hand agrees with its postings and every fee with its schedule), the chain heads it saw, signed (an
anchor: ``ledger.anchors``), and the database's own guards: the triggers that make the ledger and
the report records append-only are present and enabled, and the database really refuses an edit.

The behaviour check runs each probe (an UPDATE or DELETE of an existing row; on PostgreSQL also an
unbalanced entry checked immediately, and what only the tables' owner or a superuser may do:
TRUNCATE the journal or the entries, ALTER TABLE ... DISABLE TRIGGER, switch triggers off for a
session) inside a savepoint that is always rolled back, as the database role the app connects as
(named in the report): a refused probe leaves nothing behind, and a probe the database let through
is undone at once and reported as a failure. Nothing is ever changed by running this report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError, connection, transaction
from django.db.backends.utils import CursorWrapper

from backoffice.books import BooksReport, verify_books
from backoffice.reports.common import ReportMeta, make_meta
from ledger import anchors
from ledger.db_privileges import RECORD_TABLES
from ledger.models import (
    IntegrityCheck,
    IntegrityScope,
)

if TYPE_CHECKING:
    pass

TITLE = "Ledger integrity report"

SHOWN_PROBLEMS = 100
"""Problems a page shows (with the count of all of them)."""

# (table, trigger) pairs each database must have, from migrations 0002 and 0004.
_RECORDS = list(RECORD_TABLES)  # the append-only records (ledger/db_privileges.py)
EXPECTED_TRIGGERS: dict[str, list[tuple[str, str]]] = {
    "postgresql": [
        ("ledger_journaltransaction", "ledger_journaltransaction_append_only"),
        ("ledger_entry", "ledger_entry_append_only"),
        ("ledger_account", "ledger_account_no_delete"),
        ("ledger_account", "ledger_account_identity_fixed"),
        ("ledger_journaltransaction", "ledger_journaltransaction_balanced"),
        ("ledger_entry", "ledger_entry_balanced"),
        *((table, f"{table}_append_only") for table in _RECORDS),
        ("ledger_reportexport", "ledger_reportexport_no_delete"),
    ],
    "sqlite": [
        ("ledger_journaltransaction", "ledger_journaltransaction_no_update"),
        ("ledger_journaltransaction", "ledger_journaltransaction_no_delete"),
        ("ledger_entry", "ledger_entry_no_update"),
        ("ledger_entry", "ledger_entry_no_delete"),
        ("ledger_account", "ledger_account_no_delete"),
        ("ledger_account", "ledger_account_identity_fixed"),
        *((table, f"{table}_no_update") for table in _RECORDS),
        *((table, f"{table}_no_delete") for table in [*_RECORDS, "ledger_reportexport"]),
    ],
}

_PROBES: list[tuple[str, str]] = [
    (
        "UPDATE of a journal transaction",
        "UPDATE ledger_journaltransaction SET memo = memo "
        "WHERE id = (SELECT MIN(id) FROM ledger_journaltransaction)",
    ),
    (
        "DELETE of a journal transaction",
        "DELETE FROM ledger_journaltransaction WHERE id = (SELECT MIN(id) FROM ledger_journaltransaction)",
    ),
    (
        "UPDATE of an entry",
        "UPDATE ledger_entry SET amount = amount WHERE id = (SELECT MIN(id) FROM ledger_entry)",
    ),
    ("DELETE of an entry", "DELETE FROM ledger_entry WHERE id = (SELECT MIN(id) FROM ledger_entry)"),
    ("DELETE of an account", "DELETE FROM ledger_account WHERE id = (SELECT MIN(id) FROM ledger_account)"),
    (
        "UPDATE of a drop count",
        "UPDATE ledger_dropcount SET note = note WHERE id = (SELECT MIN(id) FROM ledger_dropcount)",
    ),
    (
        "DELETE of a shift close",
        "DELETE FROM ledger_shiftclose WHERE id = (SELECT MIN(id) FROM ledger_shiftclose)",
    ),
]
# PostgreSQL only: an entry that unbalances its transaction, with the deferred sum check made immediate.
_PG_UNBALANCED_PROBE = (
    "INSERT of an entry that unbalances its transaction",
    "INSERT INTO ledger_entry (transaction_id, account_id, line, amount) "
    "SELECT t.id, (SELECT MIN(id) FROM ledger_account), 32767, 1 FROM ledger_journaltransaction t "
    "ORDER BY t.id LIMIT 1",
)
# PostgreSQL only: what only the tables' owner (or a superuser) may do, which the role the app
# connects as must not (docs/ledger.md, "Database roles"). No row is needed to try them.
_ROLE_PROBES: list[tuple[str, str]] = [
    ("TRUNCATE of the journal", "TRUNCATE ledger_journaltransaction CASCADE"),
    ("TRUNCATE of the entries", "TRUNCATE ledger_entry CASCADE"),
    (
        "ALTER TABLE ... DISABLE TRIGGER on the entries",
        "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_append_only",
    ),
    ("Triggers off for a session (session_replication_role)", "SET LOCAL session_replication_role = replica"),
]
# A queued TRUNCATE holds up every later lock request on its tables: wait briefly. A wait is
# enough to know (PostgreSQL checks these rights before it waits for a lock).
_PROBE_LOCK_TIMEOUT = "200ms"
_PERMISSION_DENIED = "42501"  # SQLSTATE insufficient_privilege
_LOCK_NOT_AVAILABLE = "55P03"  # lock_timeout expired


@dataclasses.dataclass(frozen=True, slots=True)
class TriggerCheck:
    table: str
    trigger: str
    present: bool
    enabled: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ProbeResult:
    """``outcome``: ``refused`` (good), ``allowed`` (the database let the edit through; undone at
    once), ``untested`` (no row to try it on, or the probe could not run: ``detail`` says)."""

    probe: str
    outcome: str
    detail: str


@dataclasses.dataclass(frozen=True, slots=True)
class GuardReport:
    vendor: str
    triggers: list[TriggerCheck]
    probes: list[ProbeResult]
    notes: list[str]
    role: str = ""
    """The database role probed (the app's connection), e.g. ``casino_app`` or ``postgres
    (superuser)``; empty on SQLite, which has no roles."""

    @property
    def ok(self) -> bool:
        return all(t.present and t.enabled for t in self.triggers) and not any(
            p.outcome == "allowed" for p in self.probes
        )


@dataclasses.dataclass(frozen=True, slots=True)
class CheckLine:
    name: str
    ok: bool
    detail: str


@dataclasses.dataclass(frozen=True, slots=True)
class LastCheck:
    check_id: int
    started_at: dt.datetime
    ok: bool
    problems: int


@dataclasses.dataclass(frozen=True, slots=True)
class IntegrityReport:
    meta: ReportMeta
    ok: bool
    checks: list[CheckLine]
    ledger: dict[str, Any]
    guards: GuardReport
    last_stored_check: LastCheck | None
    anchors: dict[str, Any]
    """The chain heads this report saw, signed (``ledger.anchors``): keep a copy to check later."""


class _Undo(Exception):
    def __init__(self, rowcount: int) -> None:
        super().__init__(rowcount)
        self.rowcount = rowcount


def _probe(name: str, sql: str, *, before: str = "", after: str = "") -> ProbeResult:
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                if before:
                    cursor.execute(before)
                try:
                    cursor.execute(sql)
                    rowcount = cursor.rowcount
                finally:
                    if after:
                        cursor.execute(after)
            raise _Undo(rowcount)  # always roll back, even (especially) if the database allowed it
    except _Undo as undone:
        if undone.rowcount and undone.rowcount > 0:
            return ProbeResult(name, "allowed", "the database accepted the statement (rolled back)")
        return ProbeResult(name, "untested", "no row to try it on")
    except DatabaseError as exc:
        return ProbeResult(name, "refused", str(exc).strip().splitlines()[0][:300])


def _role_probe(name: str, sql: str, role: str) -> ProbeResult:
    """Try ``sql`` in a savepoint that is always rolled back. Pending deferred checks are run first
    (PostgreSQL refuses TRUNCATE and ALTER TABLE while trigger events are pending; the rollback
    makes them pending again), and a lock is waited for briefly: PostgreSQL checks these rights
    before it waits for the table's lock, so a wait means the role holds the right."""
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f"SET LOCAL lock_timeout = '{_PROBE_LOCK_TIMEOUT}'")
                cursor.execute(sql)
            raise _Undo(0)  # always roll back: the database let it through
    except _Undo:
        return ProbeResult(
            name, "allowed", f"role {role} may do it: the database accepted it (rolled back at once)"
        )
    except DatabaseError as exc:
        message = str(exc).strip().splitlines()[0][:300]
        code = getattr(exc.__cause__, "sqlstate", None)
        if code == _PERMISSION_DENIED:
            return ProbeResult(name, "refused", f"role {role}: {message}")
        if code == _LOCK_NOT_AVAILABLE:
            return ProbeResult(
                name, "allowed", f"role {role} holds the right: it waited for the table's lock (timed out)"
            )
        return ProbeResult(name, "untested", f"the probe could not run: {message}")


def _role(cursor: CursorWrapper) -> tuple[str, bool]:
    """The role the connection acts as, described (``postgres (superuser)``, ``casino_owner (owner of
    the ledger's tables)``), and whether it has the owner's rights."""
    cursor.execute(
        "SELECT current_user, r.rolsuper, pg_has_role(current_user, c.relowner, 'USAGE') "
        "FROM pg_roles r, pg_class c WHERE r.rolname = current_user AND c.oid = 'ledger_entry'::regclass"
    )
    name, superuser, owner = cursor.fetchone()
    if superuser:
        return f"{name} (superuser)", True
    if owner:
        return f"{name} (owner of the ledger's tables)", True
    return str(name), False


def _triggers(vendor: str) -> list[TriggerCheck]:
    expected = EXPECTED_TRIGGERS.get(vendor, [])
    found: dict[str, bool] = {}  # trigger name -> enabled
    with connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute(
                "SELECT t.tgname, t.tgenabled <> 'D' FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND c.relname LIKE %s",
                ["ledger%"],
            )
            found = {name: bool(enabled) for name, enabled in cursor.fetchall()}
        elif vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            found = {name: True for (name,) in cursor.fetchall()}
    return [
        TriggerCheck(table=table, trigger=name, present=name in found, enabled=found.get(name, False))
        for table, name in expected
    ]


def check_database_guards() -> GuardReport:
    """Which of the expected triggers exist and are enabled, and whether the database refuses
    each probe, as the role the app connects as (on PostgreSQL also what only the tables' owner may
    do; ``role`` and a note name the role). Changes nothing (every probe is rolled back)."""
    vendor = connection.vendor
    probes = [_probe(name, sql) for name, sql in _PROBES]
    notes: list[str] = []
    if vendor == "postgresql":
        probes.append(
            _probe(
                *_PG_UNBALANCED_PROBE,
                before="SET CONSTRAINTS ledger_entry_balanced IMMEDIATE",
                after="SET CONSTRAINTS ledger_entry_balanced DEFERRED",
            )
        )
        with connection.cursor() as cursor:
            cursor.execute("SHOW session_replication_role")
            replication_role = cursor.fetchone()[0]
            role, owner_rights = _role(cursor)
        if replication_role != "origin":
            notes.append(
                f"session_replication_role is {replication_role!r}: row triggers do not fire in this session"
            )
        role_probes = [_role_probe(name, sql, role) for name, sql in _ROLE_PROBES]
        probes += role_probes
        if owner_rights or any(p.outcome == "allowed" for p in role_probes):
            notes.append(
                f"Probed as role {role}, the role the app connects as: it may truncate the ledger or switch "
                'its triggers off. Run the app as a least-privilege role (README, "Least privilege on '
                'PostgreSQL"; manage.py db_roles).'
            )
        else:
            notes.append(
                f"Probed as role {role}, the role the app connects as: neither a superuser nor the tables' "
                "owner."
            )
        return GuardReport(vendor=vendor, triggers=_triggers(vendor), probes=probes, notes=notes, role=role)
    notes.append(
        "SQLite has no deferred triggers: that every transaction's entries sum to zero is checked by "
        "the posting service and by verify_ledger, not by the database."
    )
    notes.append(
        "SQLite has no roles: whoever may write the database file may drop its triggers (production "
        "runs on PostgreSQL as a least-privilege role)."
    )
    return GuardReport(vendor=vendor, triggers=_triggers(vendor), probes=probes, notes=notes)


_CHAIN_CODES = {
    "chain_gap",
    "chain_broken",
    "hash_mismatch",
    "head_missing",
    "head_mismatch",
    "unknown_key",
    "hash_downgraded",
    "unkeyed_row",
}
_SUM_CODES = {"too_few_entries", "zero_entry", "unbalanced", "ledger_not_zero", "reversal_mismatch"}
_BALANCE_CODES = {"balance_mismatch", "negative_chips", "pot_not_cleared"}
_ANCHOR_CODES = {
    "anchor_malformed",
    "anchor_unknown_key",
    "anchor_signature_invalid",
    "anchor_conflict",
    "anchor_missing",
    "anchor_mismatch",
}
_HAND_CODES = {
    "hand_input_digest_mismatch",
    "settlement_missing",
    "settlement_mismatch",
    "settlement_input_mismatch",
    "settlement_unlinked",
    "settlement_postings_malformed",
    "fee_no_rate",
    "fee_schedule_mismatch",
    "fee_missing",
    "fee_mismatch",
}


def summarize(books: BooksReport, guards: GuardReport) -> list[CheckLine]:
    """The lines of the report, each OK or not, with the problem codes behind it; the database's
    guards last."""

    def line(name: str, codes: set[str], ok_text: str) -> CheckLine:
        found = [p for p in books.problems if p.code in codes]
        detail = (
            ok_text
            if not found
            else f"{len(found)} problem(s): " + ", ".join(sorted({p.code for p in found}))
        )
        return CheckLine(name=name, ok=not found, detail=detail)

    refused = sum(p.outcome == "refused" for p in guards.probes)
    allowed = [p.probe for p in guards.probes if p.outcome == "allowed"]
    missing = [t.trigger for t in guards.triggers if not (t.present and t.enabled)]
    guard_detail = f"{len(guards.triggers)} trigger(s) present; {refused} probe edit(s) refused"
    if guards.role:
        guard_detail += f" (as role {guards.role})"
    if missing:
        guard_detail = "missing or disabled: " + ", ".join(missing)
    if allowed:
        guard_detail += "; ALLOWED: " + ", ".join(allowed)
    return [
        line(
            "Every transaction's entries sum to zero (and all balances together)",
            _SUM_CODES,
            f"{books.ledger.transactions} transaction(s), {books.ledger.entries} entries",
        ),
        line(
            "Every balance equals the sum of its entries",
            _BALANCE_CODES,
            f"{books.ledger.accounts} account(s)",
        ),
        line("The hash chains verify", _CHAIN_CODES, f"{books.ledger.chains} chain(s)"),
        line(
            "The published chain heads still match (signed anchors)",
            _ANCHOR_CODES,
            f"{books.anchors} anchor(s), {books.anchored_heads} head(s)",
        ),
        line(
            "Every settled hand agrees with its postings and every fee with its schedule",
            _HAND_CODES,
            f"{books.hands} hand(s)",
        ),
        CheckLine(name="The database refuses edits", ok=guards.ok, detail=guard_detail),
    ]


def sign_heads(books: BooksReport, *, context: str, at: dt.datetime) -> dict[str, Any]:
    """The chain heads ``books`` read, as a signed anchor document (``ledger.anchors.sign``)."""
    heads = (anchors.Head(chain, sequence, head_hash) for chain, (sequence, head_hash) in books.heads.items())
    return anchors.sign(heads, context=context, at=at)


def build_integrity_report() -> IntegrityReport:
    """Verify the books and the database's guards now, and sign the chain heads seen (read-only;
    see the module docstring). Reads every row: for exports and the worker, not a page (the page
    shows the stored checks). ``ledger["problems"]`` holds the first ``SHOWN_PROBLEMS``,
    ``ledger["problem_count"]`` counts them all."""
    meta = make_meta("integrity", TITLE, None)
    books = verify_books()
    guards = check_database_guards()
    ledger = books.as_dict()
    # Counted, and the first ones shown: a damaged ledger makes a bounded report.
    ledger["problem_count"] = books.ledger.problem_count + len(books.problems) - len(books.ledger.problems)
    ledger["problems"] = ledger["problems"][:SHOWN_PROBLEMS]
    last = IntegrityCheck.objects.filter(scope=IntegrityScope.LEDGER).order_by("-started_at", "-pk").first()
    return IntegrityReport(
        meta=meta,
        ok=books.ok and guards.ok,
        checks=summarize(books, guards),
        ledger=ledger,
        guards=guards,
        last_stored_check=LastCheck(
            check_id=last.pk, started_at=last.started_at, ok=last.ok, problems=len(last.problems)
        )
        if last
        else None,
        anchors=sign_heads(books, context="integrity report", at=meta.generated_at),
    )

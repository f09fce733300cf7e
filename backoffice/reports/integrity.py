"""The integrity report: ``verify_ledger()`` (entries sum to zero, every balance equals its entries,
the hash chains verify) and the database's own guards: the triggers that make the ledger and the
report records append-only are present and enabled, and the database really refuses an edit.

The behaviour check runs each probe (an UPDATE or DELETE of an existing row; on PostgreSQL also an
unbalanced entry checked immediately) inside a savepoint that is always rolled back: a refused probe
leaves nothing behind, and a probe the database let through is undone at once and reported as a
failure. Nothing is ever changed by running this report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.db import DatabaseError, connection, transaction

from backoffice.reports.common import ReportMeta, make_meta
from ledger.models import IntegrityCheck
from ledger.verification import LedgerReport, verify_ledger

TITLE = "Ledger integrity report"

# (table, trigger) pairs each database must have, from migrations 0002 and 0004.
_RECORDS = [
    "ledger_feewaiver",
    "ledger_dropcount",
    "ledger_variancesignoff",
    "ledger_shiftclose",
    "ledger_integritycheck",
    "ledger_authchange",
]
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


@dataclasses.dataclass(frozen=True, slots=True)
class TriggerCheck:
    table: str
    trigger: str
    present: bool
    enabled: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ProbeResult:
    """``outcome``: ``refused`` (good), ``allowed`` (the database let the edit through; undone at
    once), ``untested`` (no row to try it on)."""

    probe: str
    outcome: str
    detail: str


@dataclasses.dataclass(frozen=True, slots=True)
class GuardReport:
    vendor: str
    triggers: list[TriggerCheck]
    probes: list[ProbeResult]
    notes: list[str]

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
    each probe. Changes nothing (every probe is rolled back)."""
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
            role = cursor.fetchone()[0]
        if role != "origin":
            notes.append(f"session_replication_role is {role!r}: row triggers do not fire in this session")
    else:
        notes.append(
            "SQLite has no deferred triggers: that every transaction's entries sum to zero is checked by "
            "the posting service and by verify_ledger, not by the database."
        )
    return GuardReport(vendor=vendor, triggers=_triggers(vendor), probes=probes, notes=notes)


_CHAIN_CODES = {"chain_gap", "chain_broken", "hash_mismatch", "head_missing", "head_mismatch"}
_SUM_CODES = {"too_few_entries", "zero_entry", "unbalanced", "ledger_not_zero", "reversal_mismatch"}
_BALANCE_CODES = {"balance_mismatch", "negative_chips", "pot_not_cleared"}


def summarize(ledger: LedgerReport, guards: GuardReport) -> list[CheckLine]:
    """The four lines of the report, each OK or not, with the problem codes behind it."""

    def line(name: str, codes: set[str], ok_text: str) -> CheckLine:
        found = [p for p in ledger.problems if p.code in codes]
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
    if missing:
        guard_detail = "missing or disabled: " + ", ".join(missing)
    if allowed:
        guard_detail += "; ALLOWED: " + ", ".join(allowed)
    return [
        line(
            "Every transaction's entries sum to zero (and all balances together)",
            _SUM_CODES,
            f"{ledger.transactions} transaction(s), {ledger.entries} entries",
        ),
        line("Every balance equals the sum of its entries", _BALANCE_CODES, f"{ledger.accounts} account(s)"),
        line("The hash chains verify", _CHAIN_CODES, f"{ledger.chains} chain(s)"),
        CheckLine(name="The database refuses edits", ok=guards.ok, detail=guard_detail),
    ]


def build_integrity_report() -> IntegrityReport:
    """Verify the ledger and the database's guards now (read-only; see the module docstring)."""
    meta = make_meta("integrity", TITLE, None)
    ledger = verify_ledger()
    guards = check_database_guards()
    last = IntegrityCheck.objects.order_by("-started_at", "-pk").first()
    return IntegrityReport(
        meta=meta,
        ok=ledger.ok and guards.ok,
        checks=summarize(ledger, guards),
        ledger=ledger.as_dict(),
        guards=guards,
        last_stored_check=LastCheck(
            check_id=last.pk, started_at=last.started_at, ok=last.ok, problems=len(last.problems)
        )
        if last
        else None,
    )

"""The journal's table (``backoffice.reports.journal``): one row per entry."""

from __future__ import annotations

from backoffice.exports.sections import Section, make_section
from backoffice.reports import journal
from backoffice.reports.common import fmt_local


def journal_sections(report: journal.Journal) -> list[Section]:
    return [
        make_section(
            "Entries",
            [
                "transaction_id",
                "at",
                "kind",
                "table",
                "hand_id",
                "key",
                "by",
                "reverses",
                "chain",
                "sequence",
                "line",
                "account",
                "amount_cents",
                "balance_after_cents",
                "memo",
            ],
            (
                [
                    txn.transaction_id,
                    fmt_local(txn.at),
                    txn.kind,
                    txn.table_number or "",
                    txn.hand_id or "",
                    txn.idempotency_key,
                    txn.created_by,
                    txn.reverses_id or "",
                    txn.chain,
                    txn.sequence,
                    entry.line,
                    entry.account,
                    entry.amount_cents,
                    entry.balance_after_cents,
                    txn.memo,
                ]
                for txn in report.transactions
                for entry in txn.entries
            ),
        )
    ]

"""The ledger: double-entry accounts, journal transactions and their entries, and the records kept
beside them (reports' records, the access log, verification checkpoints).

Modelled on django-hordak: every movement of money is a ``JournalTransaction`` made of two or more
``Entry`` rows whose signed amounts sum to zero, and the database itself refuses what must never
happen (see ``docs/ledger.md`` for the full list of invariants and where each is enforced).

Sign convention: an entry's ``amount`` (integer cents) is what flows *into* its account; an
account's balance is the sum of its entries. A buy-in of 100.00 is ``player +10000, cage -10000``.
The sum of all balances is therefore always zero.

Write only through ``ledger.services``; read balances through ``ledger.selectors``.

One module per concept, all of the ``ledger`` app (same labels, tables and migrations as when they
were one module); import the models from here, ``from ledger.models import Account``. The modules
depend one way: the records on ``base``, the journal on ``accounts``; none on this package
(``acyclic_siblings``).

The modules: docs/layers.md.
"""

from __future__ import annotations

from ledger import keys as _keys  # noqa: F401  (registers the ledger keys' system checks at app loading)
from ledger.models.access_events import AccessEvent, AccessEventKind
from ledger.models.accounts import Account, AccountKind
from ledger.models.auth_changes import AuthChange, AuthChangeAction
from ledger.models.base import AppendOnlyModel, AppendOnlyQuerySet, RecordQuerySet
from ledger.models.chain import GENESIS_HASH, ROOM_CHAIN, ChainHead, chain_for_table, table_id_of_chain
from ledger.models.checkpoints import CheckpointKind, CheckpointPart, VerificationCheckpoint
from ledger.models.drop_counts import DropCount, VarianceSignOff
from ledger.models.exports import ExportFormat, ExportStatus, ReportExport, ReportKind
from ledger.models.integrity import CheckSource, IntegrityCheck, IntegrityScope
from ledger.models.journal import SETTLEMENT_KINDS, Entry, JournalTransaction, TransactionKind
from ledger.models.shift_closes import ShiftClose
from ledger.models.waivers import FeeWaiver

__all__ = [
    "GENESIS_HASH",
    "ROOM_CHAIN",
    "SETTLEMENT_KINDS",
    "AccessEvent",
    "AccessEventKind",
    "Account",
    "AccountKind",
    "AppendOnlyModel",
    "AppendOnlyQuerySet",
    "AuthChange",
    "AuthChangeAction",
    "ChainHead",
    "CheckSource",
    "CheckpointKind",
    "CheckpointPart",
    "DropCount",
    "Entry",
    "ExportFormat",
    "ExportStatus",
    "FeeWaiver",
    "IntegrityCheck",
    "IntegrityScope",
    "JournalTransaction",
    "RecordQuerySet",
    "ReportExport",
    "ReportKind",
    "ShiftClose",
    "TransactionKind",
    "VarianceSignOff",
    "VerificationCheckpoint",
    "chain_for_table",
    "table_id_of_chain",
]

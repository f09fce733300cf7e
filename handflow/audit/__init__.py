"""The replay audit: every settled hand of a period re-decided from its stored input, and compared
with what was recorded and posted for it.

For each settled hand with a settled reading (:class:`tables.models.HandResult`) whose start
(``Hand.created_at``) falls in the period, four things are compared (:class:`ReplayCheck`):

* ``input_digest``: the sha256 of the stored ``engine_input`` (:func:`handflow.keys.digest_of`,
  the function the showdown used) against the stored ``digest``: an input changed after the
  reading no longer matches;
* ``engine_result``: :func:`poker.showdown.decide` on the stored input against the stored
  ``engine_result`` (``engine_refused``: the engine now refuses that input);
* ``postings``: :func:`poker.postings.settlement_postings` (the function that turned the reading
  into ledger lines at the showdown) on the re-decided reading against the stored ``postings``;
* ``ledger``: the stored ``postings`` against the entries of the hand's settlement transaction
  (``HandResult.settlement``), player by player, amount by amount, in posting order. The entries are
  :meth:`poker.postings.Postings.ledger_lines`, laid out as the ledger's ``award_pot`` and
  ``post_payments`` post them: pot games, each put-in as (player -x, pot +x), then each award and
  each return as (pot -x, player +x); Chinese and Taiwanese poker, each payment as (payer -x,
  payee +x); lines of zero are not posted, and a settlement that moves nothing has no transaction.
  The comparison is the ledger's one (:func:`ledger.settlement_check.compare_settlement`), the
  one the books' hand checks make too (:mod:`backoffice.books`).

Any difference is a failed check naming the hand and where the values part.

:func:`replay_audit` reads the hands a chunk of ids at a time with plain SQL (readings, players,
settlement transactions and their entries, each table by its own index) and makes no model object
per row; on PostgreSQL the players and the entries come in arrays, a row per hand and per
transaction (a tenth of the rows to send and to read). With ``workers`` it splits the ids among
forked processes, each with its own connection (PostgreSQL): the parent closes its connections and
its connection pool before forking, so that no process talks on another's socket.
:func:`record_replay_check` stores an outcome as an :class:`ledger.models.IntegrityCheck` of scope
``replay`` (the nightly job ``handflow.tasks.replay_audit_nightly`` and ``manage.py replay_audit`` do).

One module per concern; the names below are the ones the rest of the project uses, as
``handflow.audit.<name>``. The modules: docs/layers.md.
"""

from __future__ import annotations

from handflow.audit.compare import first_difference, ledger_lines
from handflow.audit.outcome import (
    CHUNK_HANDS,
    MAX_DIFFERENCES,
    POT,
    Line,
    ReplayCheck,
    ReplayDifference,
    ReplayOutcome,
)
from handflow.audit.run import record_replay_check, replay_audit
from handflow.audit.sql import id_array

__all__ = [
    "CHUNK_HANDS",
    "MAX_DIFFERENCES",
    "POT",
    "Line",
    "ReplayCheck",
    "ReplayDifference",
    "ReplayOutcome",
    "first_difference",
    "id_array",
    "ledger_lines",
    "record_replay_check",
    "replay_audit",
]

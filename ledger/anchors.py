"""Signed anchors: the ledger's chain heads, published outside the database and compared later.

A shift close and an integrity check each record the head ``(chain, sequence, hash)`` of every
chain as they saw it, signed with the anchor key (Ed25519, ``ledger.keys``), and print it in their
report page, CSV and PDF (and, with ``LEDGER_ANCHOR_DIR``, append it to a file there). Whoever keeps
a copy can later check, with nothing but the public key, that the ledger still holds those rows:
the transaction at each published (chain, sequence) must still have the published hash. A chain
rewritten since (even by someone who has the chain key) no longer matches; a published row that is
gone shows as missing.

A document (JSON, as stored on ``ShiftClose.anchors`` and ``IntegrityCheck.anchors``)::

    {"format": 1, "context": "shift close 2030-01-02/day", "at": "2030-01-02T16:00:01.000000+00:00",
     "key_id": "a1", "algorithm": "ed25519",
     "heads": [{"chain": "table:1", "sequence": 12, "hash": "..."}, ...],
     "signature": "<hex of the Ed25519 signature of the canonical JSON of everything else>"}

In a report's CSV export the same document is two tables (``HEADS_TITLE`` with ``HEADS_HEADERS``,
``SIGNATURE_TITLE`` with ``SIGNATURE_HEADERS``): two files of the zip of CSVs (a shift close's sealed
export, the integrity report's download), or, in a shift close sealed before the zip, two sections
of its single CSV; :func:`parse_published` reads either back.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import logging
import zipfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings

from ledger.hashing import canonical_json, timestamp_text
from ledger.keys import anchor_keys
from ledger.models import ChainHead, IntegrityCheck, JournalTransaction, ShiftClose
from ledger.verification import Problem

logger = logging.getLogger(__name__)

ANCHOR_FORMAT = 1
ALGORITHM = "ed25519"

HEADS_TITLE = "Ledger chain heads (signed anchor)"
HEADS_HEADERS = ["chain", "sequence", "hash"]
SIGNATURE_TITLE = "Anchor signature"
SIGNATURE_HEADERS = ["format", "context", "at", "key_id", "algorithm", "signature"]

_BATCH = 500
_MAX_MEMBER_BYTES = 64 * 1024 * 1024
"""A zip member larger than this (uncompressed) is not read: anchors are small."""


@dataclass(frozen=True, slots=True)
class Head:
    chain: str
    sequence: int
    hash: str


@dataclass(slots=True)
class AnchorCheck:
    """What :func:`compare` checked: ``documents`` read, ``heads`` compared, and the problems."""

    documents: int = 0
    heads: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def current_heads() -> list[Head]:
    """Every chain's head as the ``ChainHead`` rows hold it now (chains with a posting), by chain."""
    return [
        Head(chain, sequence, head_hash)
        for chain, sequence, head_hash in ChainHead.objects.filter(sequence__gt=0)
        .order_by("chain")
        .values_list("chain", "sequence", "hash")
    ]


def sign(heads: Iterable[Head], *, context: str, at: dt.datetime) -> dict[str, Any]:
    """A signed anchor document of ``heads`` (see the module docstring), under the signing key."""
    keys = anchor_keys()
    body: dict[str, Any] = {
        "format": ANCHOR_FORMAT,
        "context": context,
        "at": timestamp_text(at),
        "key_id": keys.signing_id,
        "algorithm": ALGORITHM,
        "heads": [
            {"chain": h.chain, "sequence": h.sequence, "hash": h.hash}
            for h in sorted(heads, key=lambda h: h.chain)
        ],
    }
    return {**body, "signature": keys.signing_key.sign(canonical_json(body)).hex()}


def publish(document: Mapping[str, Any]) -> None:
    """Append ``document`` as one JSON line to ``LEDGER_ANCHOR_DIR/anchors.jsonl`` when that setting
    names a directory (a mount the database's users can't write, ideally append-only or on another
    host). A failure to write is logged, not raised: the anchor is in the record and its report."""
    directory = getattr(settings, "LEDGER_ANCHOR_DIR", "")
    if not directory or not document:
        return
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        with (Path(directory) / "anchors.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(document, sort_keys=True, ensure_ascii=False) + "\n")
    except OSError:
        logger.exception("the ledger anchor could not be written to LEDGER_ANCHOR_DIR=%s", directory)


def heads_rows(document: Mapping[str, Any]) -> list[list[Any]]:
    """The CSV rows of a document's heads (``HEADS_HEADERS``)."""
    return [[h["chain"], h["sequence"], h["hash"]] for h in document.get("heads", [])]


def signature_rows(document: Mapping[str, Any]) -> list[list[Any]]:
    """The CSV row of a document's signature (``SIGNATURE_HEADERS``); none for an empty document."""
    if not document:
        return []
    return [[document.get(name, "") for name in SIGNATURE_HEADERS]]


# --- Reading published anchors ---------------------------------------------------------------------


class MalformedAnchors(ValueError):
    """The text is neither anchor JSON (one document, a list, JSON lines) nor a CSV with anchors."""


def parse_published(data: str | bytes, *, source: str = "input") -> list[tuple[str, dict[str, Any]]]:
    """The anchor documents in ``data``, each with a label naming where it came from: a JSON document,
    a JSON list of them, JSON lines (``LEDGER_ANCHOR_DIR/anchors.jsonl``), a report's zip of CSVs (a
    shift close's sealed export, the integrity report's download) or a single CSV with ``section``
    rows (a shift close sealed before the zip). Raises :class:`MalformedAnchors` when nothing can be
    read (a zip that can't be read, a member whose CRC fails, no anchor in it)."""
    if isinstance(data, bytes):
        if data[:4] == b"PK\x03\x04":
            documents = _from_zip(data, source)
            if not documents:
                raise MalformedAnchors(f"{source}: no '{SIGNATURE_TITLE}' table in the zip")
            return [(f"{source} #{n}", d) for n, d in enumerate(documents, start=1)]
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise MalformedAnchors(f"{source}: neither UTF-8 text nor a zip") from None
    stripped = data.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError:
            try:
                value = [json.loads(line) for line in stripped.splitlines() if line.strip()]
            except json.JSONDecodeError as exc:
                raise MalformedAnchors(f"{source}: not JSON or JSON lines ({exc})") from None
        documents = value if isinstance(value, list) else [value]
        if not all(isinstance(d, dict) for d in documents):
            raise MalformedAnchors(f"{source}: a JSON anchor is an object")
        return [(f"{source} #{n}", d) for n, d in enumerate(documents, start=1)]
    try:
        documents = _from_csv(stripped)
    except csv.Error as exc:
        raise MalformedAnchors(f"{source}: not a CSV ({exc})") from None
    if not documents:
        raise MalformedAnchors(f"{source}: no '{SIGNATURE_TITLE}' section found")
    return [(f"{source} #{n}", d) for n, d in enumerate(documents, start=1)]


def _unescape(cell: str) -> str:
    # The exports prefix a cell that looks like a formula with ' (backoffice.exports.csv_cell).
    if cell.startswith("'") and cell[1:2] in ("=", "+", "-", "@", "\t", "\r"):
        return cell[1:]
    return cell


def _from_csv(text: str) -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = []
    heads: list[dict[str, Any]] = []
    section, header_seen = "", False
    for raw in csv.reader(io.StringIO(text)):
        row = [_unescape(cell) for cell in raw]
        if not row:
            continue
        if row[0] == "section" and len(row) >= 2:
            section, header_seen = row[1], False
            if section == HEADS_TITLE:
                heads = []
            continue
        if section not in (HEADS_TITLE, SIGNATURE_TITLE):
            continue
        if not header_seen:
            header_seen = True  # the section's header row
            continue
        if section == HEADS_TITLE and len(row) >= 3:
            heads.append({"chain": row[0], "sequence": _int(row[1]), "hash": row[2]})
        elif section == SIGNATURE_TITLE and len(row) >= len(SIGNATURE_HEADERS):
            document: dict[str, Any] = dict(zip(SIGNATURE_HEADERS, row, strict=False))
            document["format"] = _int(document["format"])
            document["heads"] = heads
            documents.append(document)
    return documents


def _from_zip(data: bytes, source: str) -> list[dict[str, Any]]:
    """The anchors in a zip of one CSV per table: the heads table and the signature table, found by
    their header rows (whatever the files are called), paired in the zip's order."""
    heads_tables: list[list[dict[str, Any]]] = []
    signatures: list[dict[str, Any]] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                if member.is_dir() or member.file_size > _MAX_MEMBER_BYTES:
                    continue
                rows = [
                    [_unescape(cell) for cell in row]
                    for row in csv.reader(io.StringIO(archive.read(member).decode("utf-8-sig")))
                    if row
                ]
                if rows and rows[0] == HEADS_HEADERS:
                    heads_tables.append(
                        [
                            {"chain": r[0], "sequence": _int(r[1]), "hash": r[2]}
                            for r in rows[1:]
                            if len(r) >= 3
                        ]
                    )
                elif rows and rows[0] == SIGNATURE_HEADERS:
                    for r in rows[1:]:
                        if len(r) >= len(SIGNATURE_HEADERS):
                            document: dict[str, Any] = dict(zip(SIGNATURE_HEADERS, r, strict=False))
                            document["format"] = _int(document["format"])
                            signatures.append(document)
    except (zipfile.BadZipFile, zlib.error, EOFError, UnicodeDecodeError, csv.Error) as exc:
        raise MalformedAnchors(f"{source}: the zip can't be read ({exc})") from None
    for document, heads in zip(signatures, heads_tables, strict=False):
        document["heads"] = heads
    return [d for d in signatures if "heads" in d]


def _int(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text  # left as it is: the check reports the document as malformed


# --- Comparing with the ledger now ----------------------------------------------------------------------


def stored_documents() -> list[tuple[str, dict[str, Any]]]:
    """The anchors the database holds: every shift close's and every stored integrity check's."""
    found: list[tuple[str, dict[str, Any]]] = []
    for shift_date, code, document in ShiftClose.objects.order_by("shift_date", "pk").values_list(
        "shift_date", "shift_code", "anchors"
    ):
        if document:
            found.append((f"shift close {shift_date}/{code}", document))
    for pk, document in IntegrityCheck.objects.order_by("pk").values_list("pk", "anchors"):
        if document:
            found.append((f"integrity check {pk}", document))
    return found


def _heads_of(document: Mapping[str, Any]) -> list[Head] | None:
    heads = document.get("heads")
    if not isinstance(heads, list):
        return None
    parsed: list[Head] = []
    for item in heads:
        if not isinstance(item, dict):
            return None
        chain, sequence, head_hash = item.get("chain"), item.get("sequence"), item.get("hash")
        if not isinstance(chain, str) or not isinstance(head_hash, str):
            return None
        if isinstance(sequence, bool) or not isinstance(sequence, int) or sequence < 1:
            return None
        parsed.append(Head(chain, sequence, head_hash))
    return parsed


def check_signature(
    label: str, document: Mapping[str, Any], public_keys: Mapping[str, Ed25519PublicKey]
) -> tuple[list[Head] | None, Problem | None]:
    """``(heads, None)`` when ``document`` is well formed and signed by one of ``public_keys``; else
    ``(None, problem)``: ``anchor_malformed``, ``anchor_unknown_key``, ``anchor_signature_invalid``."""
    heads = _heads_of(document)
    signature = document.get("signature")
    if (
        heads is None
        or document.get("format") != ANCHOR_FORMAT
        or document.get("algorithm") != ALGORITHM
        or not isinstance(signature, str)
    ):
        return None, Problem("anchor_malformed", f"{label}: not an anchor document of format {ANCHOR_FORMAT}")
    key_id = document.get("key_id")
    key = public_keys.get(key_id) if isinstance(key_id, str) else None
    if key is None:
        return None, Problem(
            "anchor_unknown_key",
            f"{label}: signed with key {key_id!r}, which is not a trusted public key "
            "(LEDGER_ANCHOR_PUBLIC_KEYS, or --public-key)",
        )
    body = {name: value for name, value in document.items() if name != "signature"}
    try:
        key.verify(bytes.fromhex(signature), canonical_json(body))
    except (InvalidSignature, ValueError):
        return None, Problem(
            "anchor_signature_invalid",
            f"{label}: the signature does not verify with key {key_id!r}: the published heads were "
            "altered, or were not signed by this room",
        )
    return heads, None


def compare(
    documents: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    public_keys: Mapping[str, Ed25519PublicKey] | None = None,
) -> AnchorCheck:
    """Check each ``(label, document)``'s signature (with ``public_keys``, by default the trusted keys
    of the settings) and that the ledger still has each of its heads: ``anchor_missing`` (no row at
    that chain and sequence: deleted), ``anchor_mismatch`` (the row's hash differs: rewritten),
    ``anchor_conflict`` (two validly signed anchors disagree). Documents that fail their signature
    check are reported and their heads are not compared (they prove nothing either way)."""
    keys = anchor_keys().public if public_keys is None else public_keys
    result = AnchorCheck(documents=len(documents))
    published: dict[tuple[str, int], tuple[str, list[str]]] = {}  # (chain, sequence) -> (hash, labels)
    for label, document in documents:
        heads, problem = check_signature(label, document, keys)
        if problem is not None:
            result.problems.append(problem)
            continue
        for head in heads or ():
            seen = published.setdefault((head.chain, head.sequence), (head.hash, []))
            if seen[0] == head.hash:
                seen[1].append(label)
            else:
                result.problems.append(
                    Problem(
                        "anchor_conflict",
                        f"{label} and {', '.join(seen[1])} publish different hashes for {head.chain} "
                        f"#{head.sequence}: the chain was rewritten between them",
                        None,
                        None,
                        head.chain,
                    )
                )
    by_chain: dict[str, list[int]] = {}
    for chain, sequence in published:
        by_chain.setdefault(chain, []).append(sequence)
    for chain, sequences in sorted(by_chain.items()):
        sequences.sort()
        stored: dict[int, tuple[int, str]] = {}
        for start in range(0, len(sequences), _BATCH):
            stored.update(
                (sequence, (pk, row_hash))
                for sequence, pk, row_hash in JournalTransaction.objects.filter(
                    chain=chain, sequence__in=sequences[start : start + _BATCH]
                ).values_list("sequence", "pk", "hash")
            )
        for sequence in sequences:
            result.heads += 1
            expected, labels = published[(chain, sequence)]
            label = ", ".join(labels)
            row = stored.get(sequence)
            if row is None:
                result.problems.append(
                    Problem(
                        "anchor_missing",
                        f"{chain} #{sequence}, published by {label}, is not in the ledger (deleted?)",
                        None,
                        None,
                        chain,
                    )
                )
            elif row[1] != expected:
                result.problems.append(
                    Problem(
                        "anchor_mismatch",
                        f"transaction {row[0]} ({chain} #{sequence}) has another hash than {label} "
                        "published: the chain was rewritten at or before it since",
                        row[0],
                        None,
                        chain,
                    )
                )
    return result

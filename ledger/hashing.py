"""Canonical content, request digests and the hash chain.

The same functions are used when posting and when verifying, so a hash computed at posting time
can be recomputed from the stored rows alone (and the chain key, ``ledger.keys``). Changing anything
here changes every hash: treat the format as frozen (the format version ``v`` is part of the hashed
content so formats coexist).

* Format 2 (``CONTENT_VERSION``, every row posted now): the content carries ``key_id`` and the
  hash is HMAC-SHA256 under that key, so recomputing a chain needs the secret key.
* Format 1 (``UNKEYED_VERSION``, rows posted before keys existed, ``key_id`` empty): plain sha256.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

CONTENT_VERSION = 2
"""The format of keyed rows: ``key_id`` in the content, the hash an HMAC-SHA256 under that key."""

UNKEYED_VERSION = 1
"""The format of rows posted before the chain was keyed: no ``key_id``, a plain sha256."""


def canonical_json(value: Any) -> bytes:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8. Only JSON-native types are allowed,
    so a float or a Decimal sneaking in fails loudly instead of hashing differently later."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def request_digest(request: Mapping[str, Any]) -> str:
    """sha256 of the canonical request: what idempotency compares between a first call and a retry."""
    return sha256_hex(canonical_json(dict(request)))


def json_digest(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, no whitespace, UTF-8): the digest of a
    showdown's engine input (``HandResult.digest``), made by the hand flow and checked by the books
    (``backoffice.books``) with this one function."""
    return sha256_hex(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())


def posting_digest(
    *,
    kind: str,
    table_id: int | None,
    hand_id: int | None,
    reverses_id: int | None,
    memo: str,
    lines: Sequence[tuple[int, int]] | None,
    request: Mapping[str, Any] | None,
    input_digest: str = "",
) -> str:
    """A posting's request digest (``JournalTransaction.request_digest``): kind, table, hand,
    reversed transaction, memo and either the ``request`` or the ``lines`` ``(account_id, cents)``
    in order; with ``input_digest`` (a settlement: the sha256 of the showdown's engine input) that
    too, so the chained row covers what the settlement was read from. The poster (user) is
    deliberately not part of it: a retry by another session of the same request is still the same
    request."""
    content: dict[str, Any] = {
        "kind": str(kind),
        "table": table_id,
        "hand": hand_id,
        "reverses": reverses_id,
        "memo": memo,
    }
    if request is not None:
        content["request"] = dict(request)
    else:
        content["entries"] = [[account_id, amount] for account_id, amount in lines or ()]
    if input_digest:  # absent otherwise: digests of postings without one are as they always were
        content["input"] = input_digest
    return request_digest(content)


def timestamp_text(moment: dt.datetime) -> str:
    """UTC ISO-8601 with microseconds; the precision both SQLite and PostgreSQL store."""
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def transaction_content(
    *,
    chain: str,
    sequence: int,
    prev_hash: str,
    kind: str,
    table_id: int | None,
    hand_id: int | None,
    created_by_id: int | None,
    created_at: dt.datetime,
    memo: str,
    idempotency_key: str,
    request_digest: str,
    reverses_id: int | None,
    key_id: str,
    entries: Iterable[tuple[int, int, int]],
) -> dict[str, Any]:
    """The hashed content of one journal transaction; ``entries`` are ``(line, account_id, amount)``
    and are hashed in line order. ``key_id`` names the chain key (format 2); empty, the content of a
    format 1 row (no ``key_id``), which only verification of old rows asks for."""
    content: dict[str, Any] = {
        "v": CONTENT_VERSION if key_id else UNKEYED_VERSION,
        "chain": chain,
        "sequence": sequence,
        "prev_hash": prev_hash,
        "kind": str(kind),
        "table": table_id,
        "hand": hand_id,
        "created_by": created_by_id,
        "created_at": timestamp_text(created_at),
        "memo": memo,
        "idempotency_key": idempotency_key,
        "request_digest": request_digest,
        "reverses": reverses_id,
        "entries": [[line, account_id, amount] for line, account_id, amount in sorted(entries)],
    }
    if key_id:
        content["key_id"] = key_id
    return content


def transaction_hash(content: Mapping[str, Any], key: bytes | None = None) -> str:
    """The chain hash over the canonical content (which carries ``prev_hash``): HMAC-SHA256 under
    ``key`` for a format 2 content, plain sha256 for a format 1 one (``key`` None). A key given
    for format 1, or missing for format 2, raises ValueError: neither may pass for the other."""
    data = canonical_json(dict(content))
    if content.get("v") == UNKEYED_VERSION:
        if key is not None:
            raise ValueError("a format 1 (unkeyed) content is hashed without a key")
        return sha256_hex(data)
    if not key:
        raise ValueError("a format 2 (keyed) content needs its chain key")
    return hmac.digest(key, data, "sha256").hex()

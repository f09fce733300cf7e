"""Canonical content, request digests and the hash chain.

The same functions are used when posting and when verifying, so a hash computed at posting time
can be recomputed from the stored rows alone. Changing anything here changes every hash: treat the
format as frozen (``CONTENT_VERSION`` is part of the hashed content so a future format can coexist).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

CONTENT_VERSION = 1


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
    entries: Iterable[tuple[int, int, int]],
) -> dict[str, Any]:
    """The hashed content of one journal transaction; ``entries`` are ``(line, account_id, amount)``
    and are hashed in line order."""
    return {
        "v": CONTENT_VERSION,
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


def transaction_hash(content: Mapping[str, Any]) -> str:
    """The chain hash: sha256 over the canonical content (which carries ``prev_hash``)."""
    return sha256_hex(canonical_json(dict(content)))

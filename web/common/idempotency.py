"""``Idempotency-Key`` for API writes: a retry gets the first response and changes nothing.

Contract of :func:`idempotent` (a decorator for DRF view methods that write):

* the request must carry an ``Idempotency-Key`` header (8-100 characters of ``A-Z a-z 0-9 . _ :
  -``; a UUID is the usual choice), else 400 ``idempotency_key_required``;
* the key is claimed by inserting an :class:`web.models.IdempotentRequest` row in the same
  database transaction as the write. A second request with the key either finds the stored
  response (same method, path and body: the first response is returned, with the header
  ``Idempotent-Replayed: true``, and nothing is written) or is a different request (409
  ``idempotency_conflict``). A concurrent duplicate waits on the key's unique index until the
  first commits, then replays it;
* only 2xx responses are stored: a refused request (4xx) rolls back with its claim, so the key
  stays unused and the client may retry it once the cause is fixed (as the ledger does);
* the view method receives the key as ``idempotency_key`` and passes ``req:<key>`` to the
  ledger where the domain has no natural key of its own (buy-ins, rebuys, cash-outs);
* the stored responses are kept ``settings.IDEMPOTENCY_KEY_RETENTION_HOURS`` and then purged
  (:func:`purge_expired`, daily: :func:`web.tasks.purge_idempotency_keys`). Past that a retry is a
  new request: the ledger's keys, kept forever, still make every posting exactly-once (a buy-in
  retried under its key replays the first movement; a hand's fees and settlement have their own
  ``hand:<id>:...`` keys).
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from casino.core.db import insert_unless_conflict, service_atomic
from handflow.services import digest_of
from tables.errors import IdempotencyKeyMissing, IdempotencyKeyReused
from web.models import IdempotentRequest

HEADER = "Idempotency-Key"
KEY_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{8,100}$")
PURGE_BATCH = 5_000

IDEMPOTENCY_HEADER = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description=(
        "A unique key per write (e.g. a UUID). A retry with the same key and body returns the first "
        "response and changes nothing; the same key with another body is refused (409)."
    ),
)


def ledger_key(key: str) -> str:
    """The ledger idempotency key of an API request made under ``key``."""
    return f"req:{key}"


def _body(request: Request) -> Any:
    data = request.data
    if hasattr(data, "lists"):  # a QueryDict (form or multipart body)
        return {k: v for k, v in data.lists()}
    return data


def request_digest(request: Request) -> str:
    """sha256 of the request's method, path and JSON body. (The user is checked apart: a replay is
    only ever the same user's, on whichever terminal.)"""
    body = json.loads(json.dumps(_body(request), default=str))
    return digest_of({"method": request.method, "path": request.path, "body": body})


def _claim(*, key: str, digest: str, request: Request) -> IdempotentRequest | None:
    """Claim ``key`` for this request (None), or return the request already made under it.

    The INSERT comes first: a new key (the usual case) costs one statement (``ON CONFLICT DO
    NOTHING``, no savepoint); a used key inserts nothing (at once, or once the concurrent request
    holding it commits) and is read.
    """
    user = request.user if request.user.is_authenticated else None
    claim = IdempotentRequest(
        key=key,
        method=request.method or "",
        path=request.path[:300],
        request_digest=digest,
        status_code=0,
        user=user,
    )
    if insert_unless_conflict(claim):
        return None
    # The key was used, or a concurrent request with it committed first.
    existing = IdempotentRequest.objects.filter(key=key).first()
    if existing is None:  # pragma: no cover - the row that conflicted was deleted meanwhile
        raise IntegrityError(f"the Idempotency-Key {key!r} conflicts with a request that is gone")
    if existing.user_id != (user.pk if user is not None else None):
        # A replay is the same user's retry: another user (a dealer reusing a floor manager's
        # key) would otherwise receive the stored answer of a request they may not make.
        raise IdempotencyKeyReused(
            f"The Idempotency-Key {key!r} was already used by another user.", field=HEADER
        )
    if existing.request_digest != digest:
        raise IdempotencyKeyReused(
            f"The Idempotency-Key {key!r} was already used for another request "
            f"({existing.method} {existing.path}).",
            field=HEADER,
        )
    return existing


def idempotent(method: Callable[..., Response]) -> Callable[..., Response]:
    """Make a DRF write view method exactly-once under its ``Idempotency-Key`` (see the module)."""

    @functools.wraps(method)
    def wrapper(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = (request.headers.get(HEADER) or "").strip()
        if not key:
            raise IdempotencyKeyMissing(
                f"Every write needs an {HEADER} header (e.g. a UUID), so that a retry is answered "
                "without doing it twice.",
                field=HEADER,
            )
        if not KEY_PATTERN.match(key):
            raise IdempotencyKeyMissing(
                f"The {HEADER} must be 8 to 100 letters, digits or . _ : - (e.g. a UUID).", field=HEADER
            )
        digest = request_digest(request)
        # The services the view calls join this block without savepoints of their own (an error
        # rolls the whole request back, claim included).
        with service_atomic():
            stored = _claim(key=key, digest=digest, request=request)
            if stored is not None:
                return Response(
                    stored.response, status=stored.status_code, headers={"Idempotent-Replayed": "true"}
                )
            response = method(self, request, *args, idempotency_key=key, **kwargs)
            body = None if response.data is None else json.loads(JSONRenderer().render(response.data))
            if 200 <= response.status_code < 300:
                IdempotentRequest.objects.filter(key=key).update(
                    status_code=response.status_code, response=body
                )
            else:  # not stored: roll the claim back with whatever the view did
                transaction.set_rollback(True)
            return response

    return wrapper


def purge_expired(*, now: datetime.datetime | None = None) -> int:
    """Delete the replay records older than ``settings.IDEMPOTENCY_KEY_RETENTION_HOURS``; returns
    how many. Batches of :data:`PURGE_BATCH` rows, each its own transaction, so a large backlog
    never holds locks for long. Safe to run twice (the second run finds nothing)."""
    cutoff = (now or timezone.now()) - datetime.timedelta(hours=settings.IDEMPOTENCY_KEY_RETENTION_HOURS)
    purged = 0
    while True:
        with transaction.atomic():
            batch = list(
                IdempotentRequest.objects.filter(created_at__lt=cutoff)
                .order_by("created_at")
                .values_list("pk", flat=True)[:PURGE_BATCH]
            )
            if not batch:
                return purged
            purged += IdempotentRequest.objects.filter(pk__in=batch).delete()[0]

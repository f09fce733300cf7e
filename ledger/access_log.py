"""The access log: every way in, on record (``AccessEvent``; docs/security.md).

Signals record each login, failed login, lock-out and logout with the client's address
(``casino.core.client_address``, the same one the lock-outs count) and browser; an idle session's end
is recorded by the middleware that ends it (:func:`record`); a password set or changed, wherever it
was (the password change page, the admin, ``manage.py changepassword``, ``create_user``), by
:class:`RecordPasswordChange`, which Django calls whenever ``set_password`` is saved. Group and
permission changes are the configuration change log's ``AuthChange`` records (``ledger.signals``).
Connected in ``LedgerConfig.ready``. Rows are append-only: nothing here or elsewhere changes one.

What an anonymous caller can write is bounded: a row that names no user keeps at most
:data:`TYPED_USERNAME_LENGTH` characters of the username as typed and :data:`TYPED_USER_AGENT_LENGTH`
of the browser; and an attempt refused unhashed (its address locked out, or its username cooling
down: the authentication backend marks the request with :data:`REFUSED_ATTRIBUTE`) is not a row each:
they are counted per address in the default cache, and a ``locked_out`` row is written at the 1st,
10th, 100th, ... refused attempt of the address's window (``LOGIN_LOCKOUT_MINUTES``), with the count
so far (:func:`record_refused`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

from casino.core.client_address import client_address
from ledger.models import AccessEvent, AccessEventKind

USER_AGENT_LENGTH = 255
PATH_LENGTH = 255
TYPED_USERNAME_LENGTH = 64
"""A username as typed by someone not logged in is kept to this length (a real one is shorter)."""
TYPED_USER_AGENT_LENGTH = 128
"""The browser of a row that names no user is kept to this length."""
REFUSED_ATTRIBUTE = "casino_login_refused"
"""Set on a request whose login attempt was refused unhashed: why (``"address"`` locked out, or
``"username"`` cooling down). Such an attempt is summed up, not recorded one row each."""


def record(
    *,
    kind: AccessEventKind,
    request: HttpRequest | None = None,
    user: Any = None,
    username: str = "",
    detail: dict[str, Any] | None = None,
) -> AccessEvent:
    """Add one access event: ``kind``, who (``user``, or ``username`` as typed when there is no user)
    and, when there is a request, the client's address, browser and the path asked for."""
    named = user is not None and getattr(user, "pk", None) is not None
    agent_length = USER_AGENT_LENGTH if named else TYPED_USER_AGENT_LENGTH
    address = user_agent = path = None
    if request is not None:
        address = client_address(request)
        user_agent = request.META.get("HTTP_USER_AGENT", "")[:agent_length]
        path = (request.path or "")[:PATH_LENGTH]
    username = user.get_username() if named else (username or "")[:TYPED_USERNAME_LENGTH]
    return AccessEvent.objects.create(
        kind=kind,
        username=(username or "")[:150],
        user_id=getattr(user, "pk", None),
        address=address,
        user_agent=user_agent or "",
        path=path or "",
        detail=detail or {},
    )


def on_logged_in(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """``user_logged_in``: a login (the login page, the admin's, or a test's ``force_login``)."""
    record(kind=AccessEventKind.LOGIN, request=request, user=user)


def on_logged_out(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """``user_logged_out``: a logout (``user`` is None when nobody was logged in: nothing to record)."""
    if user is not None:
        record(kind=AccessEventKind.LOGOUT, request=request, user=user)


def on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    """``user_login_failed``: a wrong username or password (a row each), or an attempt refused unhashed
    during a lock-out or a cool-down (summed up: :func:`record_refused`). ``credentials`` come cleansed
    by Django (no password); the username is kept as typed, truncated."""
    username = str(credentials.get("username") or "")
    refused = getattr(request, REFUSED_ATTRIBUTE, None) if request is not None else None
    if request is not None and refused:
        record_refused(request=request, username=username, reason=str(refused))
        return
    record(kind=AccessEventKind.LOGIN_FAILED, request=request, username=username)


def record_refused(*, request: HttpRequest, username: str, reason: str) -> AccessEvent | None:
    """Count an attempt refused unhashed against its address in this window (``LOGIN_LOCKOUT_MINUTES``
    long, in the default cache every process shares) and write a ``locked_out`` row at the 1st, 10th,
    100th, ... of them, with the count so far: an address refused n times in a window writes
    1 + log10(n) rows, not n. Returns the row written, if any."""
    window = int(settings.LOGIN_LOCKOUT_MINUTES) * 60
    address = client_address(request) or "-"
    key = f"casino:login-refused:{address}:{int(timezone.now().timestamp()) // window}"
    cache.add(key, 0, timeout=2 * window)
    try:
        count = cache.incr(key)
    except ValueError:  # culled between add and incr: this one starts the count again
        cache.set(key, 1, timeout=2 * window)
        count = 1
    if not _a_power_of_ten(count):
        return None
    return record(
        kind=AccessEventKind.LOCKED_OUT,
        request=request,
        username=username,
        detail={"refused": count, "reason": reason, "window_minutes": window // 60},
    )


def _a_power_of_ten(n: int) -> bool:
    while n >= 10 and n % 10 == 0:
        n //= 10
    return n == 1


def on_locked_out(
    sender: Any, request: HttpRequest | None = None, username: str | None = None, **kwargs: Any
) -> None:
    """django-axes's ``user_locked_out``: the failure that locked the address out. An attempt refused
    while it is locked was recorded with the failed logins (:func:`on_login_failed`)."""
    if request is not None and getattr(request, REFUSED_ATTRIBUTE, None):
        return
    failures = getattr(request, "axes_failures_since_start", None)
    record(
        kind=AccessEventKind.LOCKED_OUT,
        request=request,
        username=username or "",
        detail={"failures": failures} if isinstance(failures, int) else {},
    )


class RecordPasswordChange:
    """A password "validator" that validates nothing: Django calls every validator's
    ``password_changed`` when a password set with ``set_password`` is saved (and only then: not when a
    login rehashes it with a newer hasher), wherever that happens. Listed in
    ``AUTH_PASSWORD_VALIDATORS``."""

    def validate(self, password: str, user: Any = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        if user is not None and getattr(user, "pk", None) is not None:
            record(kind=AccessEventKind.PASSWORD_CHANGED, user=user)

    def get_help_text(self) -> str:
        return "Setting or changing a password is recorded in the access log."

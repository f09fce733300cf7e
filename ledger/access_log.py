"""The access log: every way in, on record (``AccessEvent``; docs/security.md).

Signals record each login, failed login, lock-out and logout with the client's address
(``casino.core.client_address``, the same one the lock-outs count) and browser; an idle session's end
is recorded by the middleware that ends it (:func:`record`); a password set or changed, wherever it
was (the password change page, the admin, ``manage.py changepassword``, ``create_user``), by
:class:`RecordPasswordChange`, which Django calls whenever ``set_password`` is saved. Group and
permission changes are the configuration change log's ``AuthChange`` records (``ledger.signals``).
Connected in ``LedgerConfig.ready``. Rows are append-only: nothing here or elsewhere changes one.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from casino.core.client_address import client_address
from ledger.models import AccessEvent, AccessEventKind

USER_AGENT_LENGTH = 255
PATH_LENGTH = 255


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
    address = user_agent = path = None
    if request is not None:
        address = client_address(request)
        user_agent = request.META.get("HTTP_USER_AGENT", "")[:USER_AGENT_LENGTH]
        path = (request.path or "")[:PATH_LENGTH]
    if user is not None and getattr(user, "pk", None) is not None:
        username = user.get_username()
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
    """``user_login_failed``: a wrong username or password, or an attempt refused during a lock-out.
    ``credentials`` come cleansed by Django (no password); the username is kept as typed."""
    username = str(credentials.get("username") or "")
    record(kind=AccessEventKind.LOGIN_FAILED, request=request, username=username)


def on_locked_out(
    sender: Any, request: HttpRequest | None = None, username: str | None = None, **kwargs: Any
) -> None:
    """django-axes's ``user_locked_out``: the failure that locked the address or username out, and
    each attempt refused while it is."""
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

"""What several floor services share: who acts (:data:`User`, :func:`acting_user`), the reason a
configuration change must give (:func:`require_reason`), and the check of text a person typed
(:func:`check_text`)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser

from tables.errors import (
    FloorValidationError,
)

# Who does something: a signed-in user (auth.User, the model the ``*_by`` columns point to), an
# anonymous caller, or None (the system).
User = AuthUser | AnonymousUser | None


def acting_user(by: User) -> AuthUser | None:
    """The user to store in a ``*_by`` column (None for the system or an anonymous caller)."""
    return by if by is not None and by.is_authenticated else None


def require_reason(reason: str) -> str:
    """``reason`` stripped; FloorValidationError on ``reason`` when it is empty (a configuration
    change says why, for the history)."""
    reason = (reason or "").strip()
    if not reason:
        raise FloorValidationError(
            "Give a reason for this change; it is kept in the history.", field="reason"
        )
    return reason


def check_text(text: str, *, field: str, what: str, longest: int) -> None:
    """FloorValidationError on ``field`` when ``text`` (``what``, in the message) is longer than
    ``longest`` or holds a control character."""
    if len(text) > longest:
        raise FloorValidationError(f"{what} is at most {longest} characters.", field=field)
    if not text.isprintable():
        raise FloorValidationError(f"{what} may not contain control characters.", field=field)

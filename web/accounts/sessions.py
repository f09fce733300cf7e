"""Sessions end after a time without a request, and a fixed time after their login however active
(docs/security.md, "Sessions").

A dealer terminal stays logged in through a shift; a back-office session doesn't outlive a coffee
break. Which one a session is follows its user's role when they log in: a user whose only role is
Dealer (no other group, not staff) is a terminal (``TERMINAL_IDLE_MINUTES``, 12 hours by default);
everyone else is back office (``SESSION_IDLE_MINUTES``, 30 minutes). The limit and the time of the
last request are kept in the session; the last request's time is written at most once a minute, so a
burst of a terminal's requests costs no session write. A session idle for longer than its limit is
ended at its next request (recorded in the access log as ``session_expired``), which then continues
as anonymous: the login page for a page, 403 for the API.

However active, a session ends a fixed time after its login: a terminal's after a shift
(``TERMINAL_SESSION_MAX_HOURS``, 12), a back-office one's after a working day (``SESSION_MAX_HOURS``,
8), so a session kept busy, or a cookie taken, doesn't last for ever. The login's time and the limit
are kept in the session (:data:`LOGGED_IN_AT_KEY`, :data:`MAX_AGE_KEY`); the end is recorded as
``session_expired`` too. The login page says every limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.auth import cool_down_seconds
from ledger import access_log
from ledger.access_log import REFUSED_ATTRIBUTE
from ledger.models import AccessEventKind
from tables.roles import DEALER

IDLE_LIMIT_KEY = "casino_idle_seconds"
"""The session's idle limit in seconds, set at login."""
LAST_SEEN_KEY = "casino_last_seen"
"""The time (Unix seconds) of the session's latest request, to a minute."""
TOUCH_SECONDS = 60
"""The last request's time is written when it is this much older than now (a session write)."""
LOGGED_IN_AT_KEY = "casino_logged_in_at"
"""The time (Unix seconds) of the session's login."""
MAX_AGE_KEY = "casino_max_seconds"
"""How long the session may last after its login, in seconds, set at login."""


def is_terminal(user: Any) -> bool:
    """A dealer terminal's user: their only group is Dealer, and they are neither staff nor superuser."""
    if user.is_staff or user.is_superuser:
        return False
    return set(user.groups.values_list("name", flat=True)) == {DEALER}


def idle_limit_seconds(user: Any) -> int:
    """How long ``user``'s session may go without a request, in seconds."""
    minutes = settings.TERMINAL_IDLE_MINUTES if is_terminal(user) else settings.SESSION_IDLE_MINUTES
    return int(minutes) * 60


def max_age_seconds(user: Any) -> int:
    """How long ``user``'s session may last after its login, however active, in seconds."""
    hours = settings.TERMINAL_SESSION_MAX_HOURS if is_terminal(user) else settings.SESSION_MAX_HOURS
    return int(hours) * 60 * 60


def remember_idle_limit(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """``user_logged_in``: the new session's idle limit and lifetime; its login and first request are
    now."""
    if getattr(request, "session", None) is None:
        return
    now = int(time.time())
    request.session[IDLE_LIMIT_KEY] = idle_limit_seconds(user)
    request.session[MAX_AGE_KEY] = max_age_seconds(user)
    request.session[LOGGED_IN_AT_KEY] = now
    request.session[LAST_SEEN_KEY] = now


class IdleSessionMiddleware:
    """Ends a logged-in session older than its lifetime or idle for longer than its limit; otherwise
    notes the request's time."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = request.session
        if SESSION_KEY in session:
            now = int(time.time())
            last, limit = session.get(LAST_SEEN_KEY), session.get(IDLE_LIMIT_KEY)
            born, max_age = session.get(LOGGED_IN_AT_KEY), session.get(MAX_AGE_KEY)
            if isinstance(born, int) and isinstance(max_age, int) and now - born > max_age:
                self.end(
                    request,
                    detail={"session_seconds": now - born, "max_seconds": max_age},
                    message=f"You were logged out: a session lasts at most {duration(max_age // 60)}.",
                )
            elif isinstance(last, int) and isinstance(limit, int) and now - last > limit:
                self.end(
                    request,
                    detail={"idle_seconds": now - last, "limit_seconds": limit},
                    message=f"You were logged out after {duration(limit // 60)} without activity.",
                )
            else:
                # A session from before these keys (or made without a login) gets them now: its
                # lifetime starts at this request.
                if not isinstance(limit, int):
                    session[IDLE_LIMIT_KEY] = idle_limit_seconds(request.user)
                if not isinstance(born, int) or not isinstance(max_age, int):
                    session[MAX_AGE_KEY] = max_age_seconds(request.user)
                    session[LOGGED_IN_AT_KEY] = now
                if not isinstance(last, int) or now - last >= TOUCH_SECONDS:
                    session[LAST_SEEN_KEY] = now
        return self.get_response(request)

    def end(self, request: HttpRequest, *, detail: dict[str, int], message: str) -> None:
        """Record the end (``detail``), drop the session, say why (``message``), and go on as an
        anonymous user."""
        user = request.user
        if user.is_authenticated:
            access_log.record(kind=AccessEventKind.SESSION_EXPIRED, request=request, user=user, detail=detail)
        request.session.flush()
        request.user = AnonymousUser()
        messages.info(request, message)


def duration(minutes: int) -> str:
    """``30`` -> "30 minutes", ``720`` -> "12 hours", ``90`` -> "90 minutes"."""
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class LoginView(auth_views.LoginView):
    """Django's login page, which also says when a session ends and how failed logins are slowed."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["back_office_idle"] = duration(settings.SESSION_IDLE_MINUTES)
        context["terminal_idle"] = duration(settings.TERMINAL_IDLE_MINUTES)
        context["back_office_max"] = duration(60 * settings.SESSION_MAX_HOURS)
        context["terminal_max"] = duration(60 * settings.TERMINAL_SESSION_MAX_HOURS)
        context["failure_limit"] = settings.LOGIN_FAILURE_LIMIT
        context["lockout"] = duration(settings.LOGIN_LOCKOUT_MINUTES)
        context["cool_down"] = seconds(settings.LOGIN_USER_COOLDOWN_SECONDS)
        return context


def seconds(n: int) -> str:
    """``30`` -> "30 seconds", ``1`` -> "1 second"."""
    return f"{n} second{'s' if n != 1 else ''}"


def locked_out(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """django-axes's lock-out answer (``AXES_LOCKOUT_CALLABLE``): the lock-out page, 429 Too Many
    Requests, saying what is refused and for how long: the address (``LOGIN_LOCKOUT_MINUTES`` after
    its last failure), or the username cooling down (the seconds left, as ``Retry-After`` too)."""
    username = str((credentials or {}).get("username") or "")
    wait = cool_down_seconds(username) if getattr(request, REFUSED_ATTRIBUTE, None) == "username" else 0
    context = {
        "failure_limit": settings.LOGIN_FAILURE_LIMIT,
        "lockout": duration(settings.LOGIN_LOCKOUT_MINUTES),
        "cooling_down": wait > 0,
        "cool_down": seconds(settings.LOGIN_USER_COOLDOWN_SECONDS),
        "wait": seconds(wait),
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    if wait > 0:
        response["Retry-After"] = str(wait)
    return response

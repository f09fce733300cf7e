"""Sessions end after a time without a request (docs/security.md, "Sessions").

A dealer terminal stays logged in through a shift; a back-office session doesn't outlive a coffee
break. Which one a session is follows its user's role when they log in: a user whose only role is
Dealer (no other group, not staff) is a terminal (``TERMINAL_IDLE_MINUTES``, 12 hours by default);
everyone else is back office (``SESSION_IDLE_MINUTES``, 30 minutes). The limit and the time of the
last request are kept in the session; the last request's time is written at most once a minute, so a
burst of a terminal's requests costs no session write. A session idle for longer than its limit is
ended at its next request (recorded in the access log as ``session_expired``), which then continues
as anonymous: the login page for a page, 403 for the API. The login page says both limits.
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

from ledger import access_log
from ledger.models import AccessEventKind
from tables.roles import DEALER

IDLE_LIMIT_KEY = "casino_idle_seconds"
"""The session's idle limit in seconds, set at login."""
LAST_SEEN_KEY = "casino_last_seen"
"""The time (Unix seconds) of the session's latest request, to a minute."""
TOUCH_SECONDS = 60
"""The last request's time is written when it is this much older than now (a session write)."""


def is_terminal(user: Any) -> bool:
    """A dealer terminal's user: their only group is Dealer, and they are neither staff nor superuser."""
    if user.is_staff or user.is_superuser:
        return False
    return set(user.groups.values_list("name", flat=True)) == {DEALER}


def idle_limit_seconds(user: Any) -> int:
    """How long ``user``'s session may go without a request, in seconds."""
    minutes = settings.TERMINAL_IDLE_MINUTES if is_terminal(user) else settings.SESSION_IDLE_MINUTES
    return int(minutes) * 60


def remember_idle_limit(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """``user_logged_in``: the new session's idle limit, and its first request is now."""
    if getattr(request, "session", None) is None:
        return
    request.session[IDLE_LIMIT_KEY] = idle_limit_seconds(user)
    request.session[LAST_SEEN_KEY] = int(time.time())


class IdleSessionMiddleware:
    """Ends a logged-in session idle for longer than its limit; otherwise notes the request's time."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = request.session
        if SESSION_KEY in session:
            now = int(time.time())
            last, limit = session.get(LAST_SEEN_KEY), session.get(IDLE_LIMIT_KEY)
            if isinstance(last, int) and isinstance(limit, int) and now - last > limit:
                self.end(request, idle_seconds=now - last, limit=limit)
            else:
                # A session from before these keys (or made without a login) gets them now.
                if not isinstance(limit, int):
                    session[IDLE_LIMIT_KEY] = idle_limit_seconds(request.user)
                if not isinstance(last, int) or now - last >= TOUCH_SECONDS:
                    session[LAST_SEEN_KEY] = now
        return self.get_response(request)

    def end(self, request: HttpRequest, *, idle_seconds: int, limit: int) -> None:
        """Record the end, drop the session, and go on as an anonymous user."""
        user = request.user
        if user.is_authenticated:
            access_log.record(
                kind=AccessEventKind.SESSION_EXPIRED,
                request=request,
                user=user,
                detail={"idle_seconds": idle_seconds, "limit_seconds": limit},
            )
        request.session.flush()
        request.user = AnonymousUser()
        messages.info(request, f"You were logged out after {duration(limit // 60)} without activity.")


def duration(minutes: int) -> str:
    """``30`` -> "30 minutes", ``720`` -> "12 hours", ``90`` -> "90 minutes"."""
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class LoginView(auth_views.LoginView):
    """Django's login page, which also says when a session ends."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["back_office_idle"] = duration(settings.SESSION_IDLE_MINUTES)
        context["terminal_idle"] = duration(settings.TERMINAL_IDLE_MINUTES)
        return context


def locked_out(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """django-axes's lock-out answer (``AXES_LOCKOUT_CALLABLE``): the lock-out page, 429 Too Many
    Requests, saying for how long."""
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "lockout": duration(int(settings.AXES_COOLOFF_TIME.total_seconds()) // 60),
    }
    return render(request, "registration/locked_out.html", context, status=429)

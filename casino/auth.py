"""Authentication backend: Django's ModelBackend with django-axes's lock-out in front and a user's
permissions read in one query.

Lock-outs (docs/security.md, "Logins are throttled"): every ``authenticate()`` asks django-axes
first whether the client's address is locked out (too many failed logins from it, ``AXES_*`` in the
settings), then whether the username is cooling down (:func:`cool_down_seconds`: failed from several
addresses), and is refused before the password is hashed. A refused attempt counts for nothing:
the request is marked ``axes_locked_out`` before the refusal, which axes (with
``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT`` off) takes as "don't count it", and
``ledger.access_log.REFUSED_ATTRIBUTE``, which the access log sums up rather than recording a row
each. axes counts the other failures from Django's ``user_login_failed`` signal. One backend does
all this (rather than axes's own backend listed first) so a session names the backend that logged
it in, as before. Like axes's, it needs the request: ``authenticate()`` without one raises.

Every API request checks its action's permissions (``web.common.permissions.ActionPermission``), and
ModelBackend reads a user's own permissions and their groups' permissions in two queries. Here
both come from one statement (the same rows, the same ``app_label.codename`` strings, superusers
and inactive users treated the same), which saves a round trip and most of the ORM's work on every
request of a dealer terminal.

The answer is kept as ModelBackend keeps its own, on the user object (:data:`PERMISSIONS_ATTRIBUTE`):
it lives as long as that object, in practice the request's ``request.user``, and a user fetched
again reads their permissions afresh, which is what Django documents after a permission changes.
It is an attribute of ours, not ModelBackend's private ``_perm_cache``: what Django keeps there,
and when it fills it (its async ``aget_all_permissions`` does, with its two queries), is Django's
to change. Nothing here reads or writes that attribute.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import Max, Sum
from django.http import HttpRequest
from django.utils import timezone

from ledger.access_log import REFUSED_ATTRIBUTE

PERMISSIONS_ATTRIBUTE = "casino_permissions"
"""The attribute of the user object that holds its ``app_label.codename`` set once read."""


class OneQueryModelBackend(AxesStandaloneBackend, ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        """axes's check of the address (raises ``PermissionDenied`` for a locked-out address, and
        requires ``request``), the username's cool-down (raises ``PermissionDenied`` too), then
        ModelBackend's username and password check. A refusal is marked on the request (see the
        module's docstring): it counts for nothing."""
        try:
            AxesStandaloneBackend.authenticate(self, request, username=username, password=password, **kwargs)
        except AxesBackendPermissionDenied:
            setattr(request, REFUSED_ATTRIBUTE, "address")
            raise
        if request is not None and username and cool_down_seconds(username) > 0:
            request.axes_locked_out = True  # type: ignore[attr-defined]  # axes: not counted; the 429 page
            setattr(request, REFUSED_ATTRIBUTE, "username")
            raise AxesBackendPermissionDenied("the username is cooling down")
        return ModelBackend.authenticate(self, request, username=username, password=password, **kwargs)

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        """ModelBackend's answer (``has_perm`` and ``has_module_perms`` ask this), read in one query
        the first time and then from the user object (:data:`PERMISSIONS_ATTRIBUTE`)."""
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        perms: set[str] | None = getattr(user_obj, PERMISSIONS_ATTRIBUTE, None)
        if perms is None:
            if user_obj.is_superuser:
                rows = Permission.objects.values_list("content_type__app_label", "codename").order_by()
            else:
                with connection.cursor() as cursor:
                    cursor.execute(_permissions_sql(), [user_obj.pk, user_obj.pk])
                    rows = cursor.fetchall()
            perms = {f"{app_label}.{codename}" for app_label, codename in rows}
            setattr(user_obj, PERMISSIONS_ATTRIBUTE, perms)
        return perms


def cool_down_seconds(username: str) -> int:
    """How many more seconds ``username`` waits before its password may be checked again: 0 unless it
    failed ``LOGIN_USER_FAILURE_LIMIT`` times or more within ``LOGIN_LOCKOUT_MINUTES`` (from every
    address together: axes's ``AccessAttempt`` rows, which count checked passwords only), then what is
    left of ``LOGIN_USER_COOLDOWN_SECONDS`` after its latest failure."""
    now = timezone.now()
    since = now - dt.timedelta(minutes=settings.LOGIN_LOCKOUT_MINUTES)
    failures = AccessAttempt.objects.filter(username=username, attempt_time__gte=since).aggregate(
        total=Sum("failures_since_start"), last=Max("attempt_time")
    )
    if (failures["total"] or 0) < settings.LOGIN_USER_FAILURE_LIMIT or failures["last"] is None:
        return 0
    last: dt.datetime = failures["last"]
    left = last + dt.timedelta(seconds=settings.LOGIN_USER_COOLDOWN_SECONDS) - now
    return max(0, math.ceil(left.total_seconds()))


@functools.cache
def _permissions_sql() -> str:
    """ModelBackend's two queries (the user's own permissions, their groups') as one statement,
    written out: compiling the ORM's version of it cost more than running it."""
    User = get_user_model()
    quote = connection.ops.quote_name
    # The many-to-many relations' through models (the descriptors name them, typed).
    user_perms = User.user_permissions.through._meta
    user_groups = User.groups.through._meta
    group_perms = Group.permissions.through._meta
    permission, content_type = Permission._meta, ContentType._meta
    return (
        f"SELECT ct.{quote('app_label')}, p.{quote('codename')} "
        f"FROM {quote(permission.db_table)} p "
        f"JOIN {quote(content_type.db_table)} ct ON ct.{quote('id')} = p.{quote('content_type_id')} "
        f"WHERE p.{quote('id')} IN ("
        f"SELECT {quote('permission_id')} FROM {quote(user_perms.db_table)} WHERE {quote('user_id')} = %s "
        f"UNION SELECT gp.{quote('permission_id')} FROM {quote(group_perms.db_table)} gp "
        f"JOIN {quote(user_groups.db_table)} ug ON ug.{quote('group_id')} = gp.{quote('group_id')} "
        f"WHERE ug.{quote('user_id')} = %s)"
    )

import sys
from pathlib import Path

from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_save, pre_save


class LedgerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ledger"
    verbose_name = "Ledger"

    def ready(self) -> None:
        from axes.signals import user_locked_out
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group
        from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed

        from ledger import access_log, keys, signals

        # Production (DEBUG off) doesn't start with the public development keys, whatever serves the app
        # (a WSGI server runs no system checks), except for the commands that make or need no keys.
        if not running_keyless_command():
            keys.refuse_development_keys()

        # Every way in lands in the access log (ledger.access_log; password changes through its
        # validator in AUTH_PASSWORD_VALIDATORS).
        user_logged_in.connect(access_log.on_logged_in, dispatch_uid="ledger.access_login")
        user_logged_out.connect(access_log.on_logged_out, dispatch_uid="ledger.access_logout")
        user_login_failed.connect(access_log.on_login_failed, dispatch_uid="ledger.access_failed")
        user_locked_out.connect(access_log.on_locked_out, dispatch_uid="ledger.access_locked_out")

        # Users, groups and permissions changed anywhere land in the configuration change log.
        user_model = get_user_model()
        pre_save.connect(signals.remember_user_state, sender=user_model, dispatch_uid="ledger.user_before")
        post_save.connect(signals.record_user_saved, sender=user_model, dispatch_uid="ledger.user_saved")
        post_save.connect(signals.record_group_saved, sender=Group, dispatch_uid="ledger.group_saved")
        for through, uid in (
            (user_model.groups.through, "ledger.user_groups"),
            (user_model.user_permissions.through, "ledger.user_permissions"),
            (Group.permissions.through, "ledger.group_permissions"),
        ):
            m2m_changed.connect(signals.record_membership, sender=through, dispatch_uid=uid)


def running_keyless_command(argv: list[str] | None = None) -> bool:
    """Whether this process is ``manage.py <command>`` (or ``django-admin <command>``) for one of the
    commands that start without the ledger's keys (``ledger.keys.KEYLESS_COMMANDS``). The command line
    is the only thing that says so before the apps are ready."""
    from ledger.keys import KEYLESS_COMMANDS

    argv = sys.argv if argv is None else argv
    if len(argv) < 2 or Path(argv[0]).name not in {"manage.py", "django-admin"}:
        return False
    return argv[1] in KEYLESS_COMMANDS

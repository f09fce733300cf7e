from typing import Any

from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class BackofficeConfig(AppConfig):
    """Reports, exports, closing and the report jobs. No models of its own: its records are the
    ledger's (append-only) tables."""

    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        # The report jobs' periodic tasks (django-celery-beat) exist after every migrate. Sent for
        # the ledger's migrations: an app without models gets no post_migrate of its own.
        post_migrate.connect(
            _sync_schedules, sender=apps.get_app_config("ledger"), dispatch_uid="ledger.sync_schedules"
        )


def _sync_schedules(**kwargs: Any) -> None:
    from backoffice.schedules import sync_periodic_tasks

    sync_periodic_tasks(using=kwargs.get("using", "default"))

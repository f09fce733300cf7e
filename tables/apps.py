from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"
    verbose_name = "Tables and floor"

    def ready(self) -> None:
        from tables.roles import sync_roles_after_migrate

        # After every migrate (and test database set-up) the staff groups match tables.roles.
        post_migrate.connect(sync_roles_after_migrate, sender=self, dispatch_uid="tables.sync_roles")

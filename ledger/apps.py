from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_save, pre_save


class LedgerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ledger"
    verbose_name = "Ledger"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group

        from ledger import signals

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

from django.apps import AppConfig


class HandflowConfig(AppConfig):
    """The hand's money: above the floor (``tables``) and the ledger, which it joins. No models of
    its own: its records (chip movements, readings, replay records) are the floor's tables."""

    name = "handflow"
    verbose_name = "The hand's money"

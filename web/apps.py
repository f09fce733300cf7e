from django.apps import AppConfig


class WebConfig(AppConfig):
    """Pages, the API and the template tags (``{% load report_tags %}``); one model, the API's replay
    records (``web.models``)."""

    name = "web"
    verbose_name = "Pages and API"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from web.accounts import sessions

        # A new session's idle limit follows its user's role (web/accounts/sessions.py).
        user_logged_in.connect(sessions.remember_idle_limit, dispatch_uid="web.idle_limit")

from django.apps import AppConfig


class WebConfig(AppConfig):
    """Pages, the API and the template tags (``{% load report_tags %}``). No models."""

    name = "web"
    verbose_name = "Pages and API"

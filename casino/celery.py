"""The Celery application. Tasks live in each app's `tasks.py` and stay thin: they take
ids, call the same service a view calls, and are safe to run twice."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

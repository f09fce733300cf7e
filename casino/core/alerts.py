"""Alerts: telling someone when a check of the room fails or doesn't run (docs/deployment.md, "Alerts").

:func:`alert` is the one door. A failed integrity check, replay audit, restore drill or backup, and a
scheduled check that hasn't run, call it; it

* logs at ``CRITICAL`` on the ``casino.alerts`` logger (the subject, the source and the detail);
* mails ``settings.ADMINS`` (Django's ``mail_admins``: nothing is sent when the list is empty);
* POSTs one JSON document (``{"subject", "detail", "source", "at"}``) to
  ``settings.ALERT_WEBHOOK_URL`` when it is set, waiting ``ALERT_WEBHOOK_TIMEOUT`` seconds at most.

A channel that fails is logged (``ERROR`` on the same logger) and the others still run: ``alert``
never raises, so the check that called it still stores its result. It lives in the kernel so that
every layer that runs a check (the back office, the hand's money) can call it.
"""

from __future__ import annotations

import json
import logging
import urllib.request

from django.conf import settings
from django.core.mail import mail_admins
from django.utils import timezone

logger = logging.getLogger("casino.alerts")

DEFAULT_WEBHOOK_TIMEOUT = 5.0
"""Seconds to wait for the webhook when ``settings.ALERT_WEBHOOK_TIMEOUT`` isn't set."""


def alert(*, subject: str, detail: str, source: str) -> None:
    """Tell whoever watches the room that ``source`` (e.g. ``"integrity check"``) failed: log at
    ``CRITICAL``, mail ``ADMINS``, POST to the webhook when one is set. Never raises."""
    logger.critical("ALERT [%s] %s\n%s", source, subject, detail)
    try:
        # Django prefixes EMAIL_SUBJECT_PREFIX; fail_silently=False so a failure reaches the log below.
        mail_admins(f"{subject} ({source})", detail, fail_silently=False)
    except Exception:  # a mail server down must not stop the check from being stored
        logger.exception("alert: the mail to ADMINS could not be sent (%s)", subject)
    url = getattr(settings, "ALERT_WEBHOOK_URL", "")
    if url:
        try:
            document = {
                "subject": subject,
                "detail": detail,
                "source": source,
                "at": timezone.now().isoformat(),
            }
            post_webhook(url, document)
        except Exception:  # nor a webhook that doesn't answer
            logger.exception("alert: the webhook could not be reached (%s)", subject)


def post_webhook(url: str, document: dict[str, str]) -> None:
    """POST ``document`` as JSON to ``url``; raises on a network error or an answer of 400 or more."""
    timeout = float(getattr(settings, "ALERT_WEBHOOK_TIMEOUT", DEFAULT_WEBHOOK_TIMEOUT))
    request = urllib.request.Request(
        url,
        data=json.dumps(document).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        response.read()

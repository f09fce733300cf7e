"""The showdown entry as the dealer is making it: a draft, kept on the server for each hand."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from tables.models.hands import Hand


class ShowdownDraft(models.Model):
    """What the dealer has entered so far for a hand's showdown (cards, put-ins, taps), as the
    terminal's form fields by name: kept while the hand is in progress so that a reload, a crashed
    browser or another tablet draws the entry back (:func:`tables.services.save_showdown_draft`).

    A draft is the floor's note of work in progress, never a reading: the ledger never reads it,
    the showdown posts the entry itself, and the hand's history is its readings. One per hand (the
    last save wins); ``updated_by`` is who saved it last.
    """

    hand = models.OneToOneField(Hand, on_delete=models.CASCADE, related_name="showdown_draft")
    entry = models.JSONField(default=dict)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    def __str__(self) -> str:
        return f"draft of hand {self.hand_id} ({len(self.entry)} fields, {self.updated_at:%H:%M:%S})"

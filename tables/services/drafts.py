"""Showdown drafts: the entry a dealer is making, kept on the server while the hand lasts.

The dealer terminal saves what has been entered (cards, put-ins, taps) as it changes, so a reload,
a crashed browser or another tablet draws it back (:class:`tables.models.ShowdownDraft`). A draft
is a note of work in progress: nothing reads it but the screen; the showdown posts the entry itself
and the ledger never sees a draft.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

from django.utils import timezone

from casino.core.db import service
from tables.choices import HandStatus
from tables.errors import FloorValidationError, HandAlreadySettled, HandVoided
from tables.models import Hand, ShowdownDraft
from tables.services.common import User, acting_user
from tables.services.dealers import check_runs_hands

#: The most fields a draft holds: ten seats' card rows, put-ins and taps, the boards and the pad.
MAX_DRAFT_FIELDS: Final = 150
#: The longest value of one field (13 cards typed with spaces is under 40 characters).
MAX_FIELD_CHARS: Final = 200
#: The largest draft, as JSON.
MAX_DRAFT_CHARS: Final = 16_000
#: A field's name: the terminal's inputs (``board``, ``cards_3``, ``put_in_10``, ``folded_2``...).
FIELD_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")


def check_draft_entry(entry: object) -> dict[str, str]:
    """``entry`` as a draft holds it: an object of at most :data:`MAX_DRAFT_FIELDS` fields, each
    named as the terminal's inputs are and holding text of at most :data:`MAX_FIELD_CHARS`
    printable characters, :data:`MAX_DRAFT_CHARS` in all. Raises FloorValidationError (field
    ``entry``) saying which bound it broke."""
    if not isinstance(entry, Mapping):
        raise FloorValidationError("A draft is an object of the entry's fields by name.", field="entry")
    if len(entry) > MAX_DRAFT_FIELDS:
        raise FloorValidationError(
            f"A draft has at most {MAX_DRAFT_FIELDS} fields; this one has {len(entry)}.", field="entry"
        )
    fields: dict[str, str] = {}
    for name, value in entry.items():
        if not isinstance(name, str) or not FIELD_NAME.fullmatch(name):
            raise FloorValidationError(f"{str(name)[:40]!r} is not a field of the entry.", field="entry")
        if not isinstance(value, str) or len(value) > MAX_FIELD_CHARS or not value.isprintable():
            raise FloorValidationError(
                f"The draft's {name} is not text of at most {MAX_FIELD_CHARS} characters.", field="entry"
            )
        fields[name] = value
    if len(json.dumps(fields)) > MAX_DRAFT_CHARS:
        raise FloorValidationError(f"A draft is at most {MAX_DRAFT_CHARS} characters.", field="entry")
    return fields


@service
def save_showdown_draft(*, hand: Hand, entry: object, by: User) -> ShowdownDraft:
    """Keep ``entry`` (the terminal's fields by name, :func:`check_draft_entry`) as the draft of
    ``hand``'s showdown, replacing the one kept (the last save wins), with who saved it and when.

    Only for a hand in progress, by whoever runs the table's hands (the dealer clocked in there,
    or the floor: :func:`tables.services.check_runs_hands`). Writes nothing else: no reading, no
    status, no money. Raises FloorValidationError (the entry's shape or size), HandAlreadySettled
    and HandVoided (409: the hand is over, its draft is done with), NotYourTable (403).
    """
    fields = check_draft_entry(entry)
    # The hand alone is locked (not its table: nothing here needs it still), so that a draft saved
    # as the hand ends is refused rather than kept, and two tablets' first saves don't race.
    locked = Hand.objects.select_for_update(of=("self",)).select_related("table").get(pk=hand.pk)
    check_runs_hands(locked.table, by)
    if locked.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {locked.number} at table {locked.table.number} is settled.")
    if locked.status == HandStatus.VOID:
        raise HandVoided(f"Hand {locked.number} at table {locked.table.number} is void (misdeal).")
    draft, _created = ShowdownDraft.objects.update_or_create(
        hand=locked, defaults={"entry": fields, "updated_at": timezone.now(), "updated_by": acting_user(by)}
    )
    return draft


def showdown_draft(hand: Hand) -> ShowdownDraft | None:
    """The draft kept for ``hand``, or None (a read: one query)."""
    return ShowdownDraft.objects.filter(hand=hand).select_related("updated_by").first()

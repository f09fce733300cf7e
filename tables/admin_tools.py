"""What the floor's admin forms share: a service's error put on the form, next to its fields
(:func:`form_errors`), and a service run only to check the input (:class:`dry_run`), so that the
admin refuses what the service refuses with a form error, before it saves anything; and the
reason box every change asks for (:func:`change_reason_field`)."""

from __future__ import annotations

from types import TracebackType
from typing import Literal

from django import forms
from django.db import transaction

from tables.errors import FloorError


def change_reason_field(help_text: str) -> forms.CharField:
    """The admin forms' "Reason for the change" box (kept in the change log with the change)."""
    return forms.CharField(
        label="Reason for the change",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=help_text,
    )


def form_errors(form: forms.BaseForm, error: FloorError) -> None:
    """Put a service error on the form, next to the fields it names."""
    errors = getattr(error, "errors", None) or {error.field or "__all__": error.message}
    for field, message in errors.items():
        form.add_error(field if field in form.fields else None, message)


class dry_run:
    """Run a service inside a transaction that is always rolled back (validation only)."""

    def __enter__(self) -> None:
        self._atomic = transaction.atomic()
        self._atomic.__enter__()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        transaction.set_rollback(True)
        self._atomic.__exit__(exc_type, exc, tb)
        return False

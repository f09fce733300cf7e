"""The records' base: a row written once, never updated or deleted (docs/reports.md).

Fee waivers, drop counts and their sign-offs, shift closes, integrity checks, the access-change
log, the access log and the verification checkpoints are append-only: the database refuses UPDATE
and DELETE on them (migrations 0004, 0010, 0012), and so do :class:`AppendOnlyModel` and its
queryset, before the database is asked. Corrections are new records: a
:class:`ledger.models.DropCount` ``supersedes`` the one it corrects. (A report export, a background
job's row whose status moves on, is never deleted but is not one of these.)
"""

from __future__ import annotations

from typing import Any

from django.db import models


class RecordQuerySet[M: models.Model](models.QuerySet[M]):
    """Bulk UPDATE and DELETE are refused: the rows are records (the database refuses them too).

    Named apart from the floor's ``tables.models.AppendOnlyQuerySet``: the type checker's Django
    plugin knows a generated manager by its runtime name (``ManagerFrom<QuerySet>``), and two
    querysets of one name would give one app's models the other's manager."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError(f"{self.model.__name__} rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError(f"{self.model.__name__} rows are append-only")


class AppendOnlyModel(models.Model):
    """A record that is written once: ``save()`` of an existing row and ``delete()`` raise TypeError."""

    objects = RecordQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError(f"{type(self).__name__} rows are append-only")


AppendOnlyQuerySet = RecordQuerySet
"""The name :class:`RecordQuerySet` had when the ledger's models were one module."""

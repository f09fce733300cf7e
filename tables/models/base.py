"""The natural keys of the house data: games, stakes, schedules and tables are loaded and named by
one field each (``slug``, ``code``, ``number``), through :class:`NaturalKeyManager`."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from django.db import models


class NaturalKeyModel(models.Model):
    """A model with a single natural-key field, named by ``natural_key_field`` (no fields, no table)."""

    natural_key_field: ClassVar[str]

    class Meta:
        abstract = True


_NK = TypeVar("_NK", bound=NaturalKeyModel)


class NaturalKeyManager(models.Manager[_NK]):
    """``get_by_natural_key`` on the model's single natural-key field (``natural_key_field``)."""

    def get_by_natural_key(self, key: str) -> _NK:
        return self.get(**{self.model.natural_key_field: key})

"""The plain SQL's two helpers the audit's statements share (:mod:`handflow.audit.chunks`, and
the account lookup of :class:`handflow.audit.compare.Auditor`): a table's quoted name and an
array of ids for PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, models


def quoted_table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def id_array(ids: Iterable[int]) -> str:
    """Ids as one PostgreSQL array literal (``{1,2,3}``): a list would be sent an element at a time."""
    return "{" + ",".join(map(str, ids)) + "}"

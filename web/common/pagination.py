"""The API's pages of results: at most :data:`MAX_LIMIT` rows, an offset the database can take.

``?limit=99999999999999999999`` (or such an offset) reached PostgreSQL as a ``LIMIT``/``OFFSET``
beyond a 64-bit integer: a ``DataError`` (500). A limit is capped at :data:`MAX_LIMIT` (DRF's
own ``max_limit``) and an offset at :data:`MAX_OFFSET`, far past any row count.
"""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

MAX_LIMIT = 1_000
MAX_OFFSET = 2**53


class Pagination(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_offset(self, request: Request) -> int:
        return min(super().get_offset(request), MAX_OFFSET)

"""The one base class of the project's domain errors (Django only; nothing of the project above it).

Every refusal of a domain rule (the floor's :mod:`tables.errors`, the ledger's and the report
records' :mod:`ledger.errors`, the reports' filters) is a :class:`DomainError`: nothing was
written, and the error says so in a way each interface can show without knowing the domain:

* ``code``: stable and machine-readable (the API puts it in the body; part of the API contract);
* ``status``: the HTTP-ish kind of failure, 400 the input is wrong, 403 not allowed, 404 something
  named doesn't exist, 409 it conflicts with the current state;
* ``message``: for people (also ``str(error)``);
* ``field``: the input at fault, when there is one;
* ``errors``: every problem found, by field (``{field: message}``, or ``{"__all__": message}``),
  so that forms can show each next to its input.

The web layer maps every one of them to a response in one place (``web.common.errors``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DomainError(Exception):
    """A domain refusal: ``code`` is stable, ``status`` is the HTTP status it answers with."""

    code: str = "error"
    status: int = 400

    def __init__(
        self,
        message: str = "",
        *,
        code: str | None = None,
        field: str | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.field = field
        self.errors: dict[str, str] = (
            dict(errors) if errors else ({field: message} if field else {"__all__": message})
        )

    def as_dict(self) -> dict[str, Any]:
        """The error as the API returns it: ``{"code", "detail"[, "field"]}``."""
        body: dict[str, Any] = {"code": self.code, "detail": self.message}
        if self.field:
            body["field"] = self.field
        return body

"""Errors shared by the showdown entry points (kept apart so game modules can import them
without importing :mod:`poker.showdown`)."""

from __future__ import annotations

__all__ = ["ShowdownError"]


class ShowdownError(ValueError):
    """Bad showdown input; the message says what is wrong, naming the seat and the card."""

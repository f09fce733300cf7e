"""Shared fixtures. Engine tests (tests/tables/poker/) need no database."""

"""Logins and idle sessions.

The modules: docs/layers.md."""

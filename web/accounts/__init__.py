"""Logins and idle sessions."""

"""The room's public board."""

"""The waiting lists, seat offers and must-move tables.

The modules: docs/layers.md."""

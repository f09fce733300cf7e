"""The waiting lists, seat offers and must-move tables."""

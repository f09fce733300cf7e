"""The room's public board.

The modules: docs/layers.md."""

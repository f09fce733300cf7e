"""The players: finding, adding and merging them, their records, the cash day.

The modules: docs/layers.md."""

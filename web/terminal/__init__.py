"""The dealer terminal: one screen per table, and the terminals' API.

The modules: docs/layers.md."""

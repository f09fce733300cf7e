"""The report pages and the ledger's API: reports, drops, waivers, shifts, exports, integrity.

The modules: docs/layers.md."""

"""The back office: reports, exports, shift closing, drop counts, fee waivers, charts and the
report jobs (above the floor and the ledger, which it reads; it posts nothing to the journal).

The modules: docs/layers.md.
"""

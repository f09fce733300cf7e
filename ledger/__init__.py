"""The ledger: the double-entry journal in integer cents, its hash chains, keys, anchors and records
(above the engine and the kernel; docs/ledger.md). The modules: docs/layers.md.
"""

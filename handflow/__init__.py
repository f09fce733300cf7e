"""The hand's money: chips, fees before the deal, showdown, settlement, misdeal (above the floor
and the ledger, which it joins; docs/hand-flow.md).

One concept per module; the web calls them through one door, :mod:`handflow.services`, which
defines nothing.

The services (HackSoft style, as :mod:`tables.services`) take keyword-only arguments, ``by`` being
the user acting (None for the system); each runs in ONE transaction that takes its locks in the one
order (:mod:`handflow.locks`) and posts every chip movement through :mod:`ledger.services`; a
failure raises a :mod:`tables.errors` (or :mod:`ledger.errors`) exception and changes nothing.

The modules: docs/layers.md.
"""

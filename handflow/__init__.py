"""The hand's money: chips, fees before the deal, showdown, settlement, misdeal (above the floor
and the ledger, which it joins; docs/hand-flow.md).

One concept per module:

* :mod:`handflow.keys`: the ledger's idempotency keys of the hand's money, and the digests;
* :mod:`handflow.locks`: the hand's locks (the table, then the hand) and the chips a hand locks;
* :mod:`handflow.chips`: buy-in (and walk-ins), rebuy, cash-out, the table's chip rules, the chips
  the dealer screen shows;
* :mod:`handflow.table_change`: moving a player, to another table with every chip;
* :mod:`handflow.deal`: who is dealt in and the fees (the preview and the deal);
* :mod:`handflow.showdown`: the showdown entry, read by the engine and kept for confirmation;
* :mod:`handflow.sweeps`: Chinese poker's clean sweeps declared before the showdown;
* :mod:`handflow.settlement`: the reading's ledger lines, posted on confirmation;
* :mod:`handflow.misdeal`: the misdeal, which returns the fees;
* :mod:`handflow.audit`, :mod:`handflow.tasks`: the replay audit and its Celery job.

The services (HackSoft style, as :mod:`tables.services`) take keyword-only arguments, ``by`` being
the user acting (None for the system); each runs in ONE transaction that takes its locks in the one
order (:mod:`handflow.locks`) and posts every chip movement through :mod:`ledger.services`; a
failure raises a :mod:`tables.errors` (or :mod:`ledger.errors`) exception and changes nothing.
"""

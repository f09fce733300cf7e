"""The waiting lists, in one home: who waits for which game, whom to call for a seat, the calls,
the seatings from a list, must-move tables and table changes, and the record of it all
(docs/waiting-lists.md).

The layers above (the web, the hand's money, the back office) call the lists through their one
door, :mod:`tables.lists.services`, which defines nothing; the lists' models are named from
:mod:`tables.models` (``from tables.models import WaitingList``), of the ``tables`` app (its label,
tables and migrations).

This file imports nothing: :mod:`tables.models` imports :mod:`tables.lists.models` while Django
loads the app, before the services could import the models they use.

The modules: docs/layers.md.
"""

"""The waiting lists, in one home: who waits for which game, whom to call for a seat, the calls,
the seatings from a list, must-move tables and table changes, and the record of it all
(docs/waiting-lists.md).

A call flows down the package's modules, each one step of it:

* :mod:`~tables.lists.services`: the lists' one door for the layers above (the web, the hand's
  money, the back office): the public services and reads below, defined elsewhere;
* :mod:`~tables.lists.calls`: a place from added to seated (add, a call-in's arrival, call,
  pass, seat, remove, move by hand, an interest list's table opened, the time limits recorded);
  :mod:`~tables.lists.must_move`: must-move tables and the moves in from them or by a table
  change; :mod:`~tables.lists.setup`: lists opened and closed, the room's settings, a player's
  board name;
* :mod:`~tables.lists.places`: what each change starts and ends with: the lists locked and
  settled (the time limits passed recorded first), their places written back, the record appended;
* :mod:`~tables.lists.selectors`: the lists as they stand now (:class:`FloorState`: whom to call
  for each open seat, the interest lists) and the record of a day;
* :mod:`~tables.lists.rules`: the pure rules over places in memory, which writer and readers
  share;
* :mod:`~tables.lists.models`: the lists' models, of the ``tables`` app (its label, tables and
  migrations), imported by :mod:`tables.models` with the app's other models (the models are
  named from there: ``from tables.models import WaitingList``);
* :mod:`~tables.lists.admin`: the read-only admin, registered by :mod:`tables.admin`.

This file imports nothing: :mod:`tables.models` imports :mod:`tables.lists.models` while Django
loads the app, before the services could import the models they use.
"""

"""The fixtures every test directory shares, one module each (engine tests, tests/poker/, need no
database). They are plugin modules: ``pytest_plugins`` is only honoured in the root conftest.

* ``tests/fixtures/db_roles.py``: the test database (the house data loaded once, ``house``), the
  ``postgres`` and ``tamper`` markers, and the least-privilege roles (``DATABASE_OWNER_URL``:
  ``db_app_role``, ``as_the_app_role``, ``db_superuser_cursor``);
* ``tests/fixtures/users.py``: ``users`` by role, ``client_for``, ``on_duty``, ``cage_cashier``,
  ``staff``, ``cashier``;
* ``tests/fixtures/floor.py``: the floor's rows through ``tables.services``: ``make_table``,
  ``make_player``, ``seat_players``;
* ``tests/fixtures/flows.py``: chips and hands through ``handflow.services``: ``buy_in_players``,
  ``table_with_players``, ``deal_hand``, ``settle_hand``, ``cash_out_everyone``;
* ``tests/fixtures/reports.py``: the report tests' ``room`` and ``a_past_day``;
* ``tests/fixtures/cache.py``: an empty default cache for every test (``empty_cache``, autouse);
* ``tests/fixtures/export_files.py``: a directory of export files for every test (``export_dir``,
  autouse).

A fixture one directory alone uses is in that directory's conftest (the ledger's bare rows:
``tests/ledger/conftest.py``). Plain helpers the tests import are modules, never a conftest:
``tests/factories.py`` (``ReportRoom``, ``rpt_fee``, ``at_local``, ``create_bare_hand``, ...) and
``tests/races.py`` (functions run in threads at once).
"""

pytest_plugins = [
    "tests.fixtures.db_roles",
    "tests.fixtures.users",
    "tests.fixtures.floor",
    "tests.fixtures.flows",
    "tests.fixtures.reports",
    "tests.fixtures.cache",
    "tests.fixtures.export_files",
]

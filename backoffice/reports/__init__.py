"""The regulator reports (docs/reports.md). One module per report, each with a ``build_*``
function returning plain frozen dataclasses:

* ``collection.build_collection_report(filters)``
* ``hands.build_hand_history(filters, offset=, limit=)``
* ``statement.build_player_statement(player, filters)``
* ``journal.build_journal(filters, offset=, limit=)``
* ``integrity.build_integrity_report()``
* ``drops.build_drop_variance_report(filters, threshold_bp=)``
* ``changes.build_change_log(filters)`` (and ``changes.schedule_history(schedule)``, the schedule page's)
* ``downs.build_downs_report(filters, dealer=)``
* ``cash_day.build_cash_day_report(day)`` (cash per gaming day: the log, the reports over $10,000)

``common`` holds the filters, the report header and the in-memory rate lookup they share.
"""

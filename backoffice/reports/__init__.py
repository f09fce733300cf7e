"""The regulator reports (docs/reports.md). One module per report, each with a ``build_*``
function returning plain frozen dataclasses (e.g. ``collection.build_collection_report(filters)``);
``common`` holds the filters, the report header and the in-memory rate lookup they share.

The modules: docs/layers.md.
"""

"""The pure poker rules engine (no Django, nothing of the project): cards, hand reading, pots,
kill, showdowns. Its contract is :func:`poker.showdown.decide`, JSON in and out
(``docs/showdown-json.md``); its readers take the answer typed (:mod:`poker.reading`). See
``docs/engine.md``.

The modules: docs/layers.md.
"""

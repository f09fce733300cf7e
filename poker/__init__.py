"""The pure poker rules engine (no Django): cards, hand reading, pots, kill, showdowns.

Modules: :mod:`.cards`, :mod:`.hands`, :mod:`.pots`, :mod:`.kill`, :mod:`.showdown`
(``decide``, the JSON contract of ``docs/showdown-json.md``).  See ``docs/engine.md``.
"""

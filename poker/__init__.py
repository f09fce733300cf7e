"""The pure poker rules engine (no Django): cards, hand reading, pots, kill, showdowns.

Modules: :mod:`.cards`, :mod:`.hands`, :mod:`.pots`, :mod:`.kill`, :mod:`.showdown`
(``decide``, the JSON contract of ``docs/showdown-json.md``), and for the readers of a decided
showdown :mod:`.games` (what differs by game, one :class:`~.games.GameRules` per game),
:mod:`.reading` (the engine's answer typed, read back from its JSON), :mod:`.postings` (the
ledger lines a settlement posts) and :mod:`.reading_words` (a reading in words).
See ``docs/engine.md``.
"""

"""The dealer terminal: one screen per table, and the terminals' API.

``views`` (the pages and their responses), ``screen`` (the screen's read, one selector),
``entry`` (what the dealer chose and entered), ``presenters`` (the reading in words), ``api`` and
``serializers`` (the terminals' API under ``/api/terminal/``).
"""

"""The web: every DRF endpoint, page, form, serializer and template tag. It translates requests
into calls of the layers below and their answers and refusals into responses; no rules of its own.

A package per concept; the modules: docs/layers.md.
"""

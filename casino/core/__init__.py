"""The kernel every layer may use: Django only, nothing of the project above it.

The modules: docs/layers.md.
"""

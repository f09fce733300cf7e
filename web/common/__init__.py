"""The web's shared plumbing: errors, idempotency, parsers, pagination, permissions, throttles.

The modules: docs/layers.md."""

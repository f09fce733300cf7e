"""The web's shared plumbing: errors, idempotency, parsers, pagination, permissions, throttles,
the answers no cache keeps.

The modules: docs/layers.md."""

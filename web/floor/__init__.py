"""The floor: tables, their chips and set-up, the collection schedules, the floor API.

The modules: docs/layers.md."""

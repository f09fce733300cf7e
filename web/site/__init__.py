"""The site's own pages: health, the API's documentation.

The modules: docs/layers.md."""

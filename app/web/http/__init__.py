"""The web layer's blueprints: one per part of the site (pages, REST API, documents, live runs, the proxy, rooms)."""

"""``streamscope conform``: a battery of streamed requests, each a case (``cases/``) that builds
its request and says what it expects of the answer, run against a server and judged by the
case, the rule catalogue and optionally the client judges (docs/conform.md). ``compare.py``
compares two reports; ``service.py`` runs a battery for the page (``/conform``)."""

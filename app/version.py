"""Streamscope's version: one place, read by the command line, ``/healthz`` and the page's
``hello`` (the package's ``__version__`` is this)."""

__version__ = "0.1.0"

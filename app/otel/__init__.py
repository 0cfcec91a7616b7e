"""OpenTelemetry export (docs/otel.md): each proxied call and live run as one span following
the GenAI semantic conventions, and the GenAI client metrics, over OTLP/HTTP.

``model.py`` is what a span and its metric points say, a pure function of a capture's header
and one stream with its metrics (it imports nothing of OpenTelemetry's); ``exporter.py`` is the
adapter: a bounded queue, one worker thread, the OpenTelemetry SDK and its OTLP exporters.
"""

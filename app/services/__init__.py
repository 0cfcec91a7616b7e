"""Application services: what the web layer, the CLI and the tests use without Flask (the captures to play, uploads, exports, built results and the errors they raise)."""

"""Live mode: requests to an OpenAI-compatible endpoint, streamed, recorded and fanned out."""

"""Capture readers: every format people have, read into streams of timeline events."""

from .model import FORMATS, Capture, Limits
from .read import detect, read_capture

__all__ = ["FORMATS", "Capture", "Limits", "detect", "read_capture"]

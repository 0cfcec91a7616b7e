"""Capture readers: every format people have, read into streams of timeline events."""

from .formats import FORMATS, Format, format_named
from .formats import NAMES as FORMAT_NAMES
from .model import Capture, Limits
from .read import detect, read_capture

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "Capture",
    "Format",
    "Limits",
    "detect",
    "format_named",
    "read_capture",
]

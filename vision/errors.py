"""Errors raised by the vision stage.

All subclass :class:`ValueError` (as in ``rules.errors``) so a caller that only cares that an input
was bad can catch ``ValueError``. Each message names the input and says what to do.
"""

from __future__ import annotations


class VisionError(ValueError):
    """Base class of the vision stage's input errors."""


class ImageReadError(VisionError):
    """A file that cannot be read as an image (missing, empty, not an image format OpenCV knows)."""


class ModelMissingError(VisionError):
    """An ONNX model file is missing or unreadable; the message says how to rebuild it."""


class LabelError(VisionError):
    """A label file (e.g. ``NAME.json`` of a dice photo) that does not follow the documented layout."""

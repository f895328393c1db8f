"""Errors raised by calibration. Each message names the input and says what to do."""

from __future__ import annotations


class CalibrationError(ValueError):
    """Bad calibration input: corners, images, ChArUco views or a profile file."""


class CornerError(CalibrationError):
    """Board corners that are malformed, outside the image, in the wrong order or degenerate."""


class ProfileError(CalibrationError):
    """A calibration profile (JSON) that is missing, malformed or of an unknown version."""

"""gammonwatch calibration."""

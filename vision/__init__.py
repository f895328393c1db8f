"""gammonwatch vision."""

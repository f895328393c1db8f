"""gammonwatch rules."""

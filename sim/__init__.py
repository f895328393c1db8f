"""gammonwatch sim."""

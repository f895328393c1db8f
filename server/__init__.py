"""gammonwatch server."""

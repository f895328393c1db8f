"""Package data of the rules engine: a real match transcript for ``gammonwatch demo`` (see SOURCE.txt)."""

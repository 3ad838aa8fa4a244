"""transforms."""

"""memstrata."""

"""Vector stores for semantic recall."""

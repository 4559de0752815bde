"""Embedders."""

"""Readers for public conversation datasets (LoCoMo)."""

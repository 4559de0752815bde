"""Helpers outside the library core: datasets, the demo and chat-file ingestion."""

"""LLM protocol, backends and the offline summarizer."""

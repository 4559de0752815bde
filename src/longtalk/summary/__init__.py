"""The running summary: model, prompts, templates, triggers, planner, chain, offline summarizer."""

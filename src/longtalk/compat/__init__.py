"""Drop-in compatibility with the systems longtalk replaces.

``longtalk.compat.orchid`` and ``longtalk.compat.orbiter`` expose Orchid's and Orbiter's
memory classes and functions with their signatures, defaults, wording and formats, as
adapters over longtalk's own filters, truncation, summary writer and LLM seam. See
docs/compat.md for where they differ from the native API and why.
"""

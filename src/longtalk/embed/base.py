"""The embedder seam."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text.

    ``model_id`` names the model and its version; it is stored beside the vectors so that a
    model change is detected instead of silently mixing vector spaces.
    """

    @property
    def model_id(self) -> str:
        """The model's name and version."""
        ...

    @property
    def dimension(self) -> int:
        """The vectors' size."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch: shape (len(texts), dimension)."""
        ...

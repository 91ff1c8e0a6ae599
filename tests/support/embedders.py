"""A real embedder that records what it is asked to embed, for tests that check what is
embedded again and what is not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_platform.embeddings import Embedder, embed_queries


class CountingEmbedder:
    """The wrapped embedder's vectors, recording each text: ``embedded`` in the text role
    (``embed``), ``asked`` in the query role (``embed_queries``)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.embedded: list[str] = []
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> Any:
        self.embedded.extend(texts)
        return self.inner.embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> Any:
        self.asked.extend(texts)
        return embed_queries(self.inner, texts)

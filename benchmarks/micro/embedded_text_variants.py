"""Changes of what is embedded, measured on dev and not shipped.

Each variant changes one text the embedders see, nothing else (the lexical channel, the
matched words and the relevance model read what they read before):

- MADial dialogues (recall@10 as ``memory-platform eval madial`` measures it): the query
  without the assistant's lines (only what the user said), and the query's vector moved
  toward its last line's (weight 0.3 / 0.6: the line the answer must take up);
- the owner questions of ``owner_questions.py``, Chinese memories written ``我 …``: every
  stored text embedded without its 我, as a Chinese query already is
  (``textutil.without_owner_pronoun``). ::

    .venv/bin/python benchmarks/micro/embedded_text_variants.py  # about 30 seconds

Writes ``benchmarks/results/embedded_text_variants.md``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from owner_questions import MEMORIES, OTHERS, QUESTIONS, UNANSWERED, direct_per_question
from report import Report, madial_and_out, madial_recall

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.embeddings import embed_queries, query_text
from memory_platform.recent_vectors import RecentVectors
from memory_platform.retrieval import retriever
from memory_platform.textutil import transcript_speakers, without_owner_pronoun

RESULTS = Path(__file__).resolve().parents[1] / "results"
_ASSISTANTS = {"assistant", "ai", "bot", "助手"}


def _without_assistant(query: str) -> str:
    """The query as embedded, the assistant's lines of a pasted conversation left out."""
    if not transcript_speakers(query):
        return query_text(query)
    kept = [
        line
        for line in query.splitlines()
        if not any(line.lstrip("<[ ").casefold().startswith(a) for a in _ASSISTANTS)
    ]
    return query_text("\n".join(kept) or query)


@contextmanager
def _toward_last_line(weight: float) -> Iterator[None]:
    """Each query vector plus ``weight`` times its last line's, normalised again."""

    def embed(self: RecentVectors, user_id: str, text: str) -> Any:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            return embed_queries(self.embedder, [text])[0]
        whole, last = embed_queries(self.embedder, [text, lines[-1]])
        vector = whole + weight * last
        return (vector / np.linalg.norm(vector)).astype(np.float32)

    with mock.patch.object(RecentVectors, "query", embed):
        yield


def _owner_questions(stored_text: Callable[[str], str]) -> tuple[int, float, float]:
    """Chinese owner questions: found directly (of 20), direct results per question that
    nothing answers, and per question about someone else, with each stored text embedded
    as ``stored_text`` makes it."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "owner.db")
        with MemoryPlatform(settings) as mp:
            embed = mp.embedder.embed
            with mock.patch.object(
                mp.embedder, "embed", lambda texts: embed([stored_text(t) for t in texts])
            ):
                user = "variants"
                ids = [mp.create_memory(user, *memory) for memory in MEMORIES["zh"]]
                mp.wait_for_indexing()
                found = sum(
                    ids[index]
                    in [
                        r.id for r in mp.search(user, q, record_access=False) if r.layer == "direct"
                    ]
                    for q, index in QUESTIONS["zh"]
                )
                return (
                    found,
                    direct_per_question(mp, user, UNANSWERED["zh"]),
                    direct_per_question(mp, user, OTHERS["zh"]),
                )


def main() -> None:
    madial, out = madial_and_out(__doc__ or "", RESULTS / "embedded_text_variants.md")
    queries: dict[str, Any] = {
        "as shipped": nullcontext(),
        "the assistant's lines left out": mock.patch.object(
            retriever, "query_text", _without_assistant
        ),
        "moved toward the last line, 0.3": _toward_last_line(0.3),
        "moved toward the last line, 0.6": _toward_last_line(0.6),
    }
    table = Report(
        "What the embedders are given, changed one way at a time "
        "(`benchmarks/micro/embedded_text_variants.py`): MADial dev recall@10 of the query "
        "variants; for the stored-text variant, the Chinese owner questions of "
        "`owner_questions.py` (found directly of 20, direct results per question nothing "
        "answers, per question about someone else).",
        ["variant", "MADial recall@10", "owner questions (zh)"],
    )
    for label, patch in queries.items():
        with patch:
            table.add(f"query: {label}", f"{madial_recall(madial):.3f}", "")
    for label, stored in {
        "stored texts as shipped": lambda text: text,
        "stored texts without 我": without_owner_pronoun,
    }.items():
        found, nothing, others = _owner_questions(stored)
        table.add(label, "", f"{found} / {nothing:.2f} / {others:.2f}")
    table.write(out)


if __name__ == "__main__":
    main()

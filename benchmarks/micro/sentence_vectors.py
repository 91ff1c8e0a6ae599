"""What folding an episode's sentences into its vector does to the dense channel.

An episode is embedded from its contextual text (``episode_embedding_text``). A turn of
several sentences is then mostly about its longest theme, and a question answered by one
of its sentences misses it. This compares, on the dev sets with the default embedder, the
episode vector made from the whole only (what the store does) with a folded one (the
whole plus the mean of its sentences, each as said, normalised; equal say, no weight):

- the dense channel alone (recall@10 of episodes, LoCoMo categories 1-4 and MADial);
- the dense channel fused with the store's BM25 by reciprocal rank (k = 60), a
  model-free stand-in for the platform's fusion.

    .venv/bin/python benchmarks/micro/sentence_vectors.py      # about 6 minutes
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

import numpy as np

from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.config import load_settings
from memory_platform.embeddings import embed_queries, make_embedder
from memory_platform.models import Episode, VectorKind
from memory_platform.store import open_store
from memory_platform.store.base import episode_embedding_text

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def episode_sentence_parts(speaker: str | None, text: str) -> list[str]:
    """The sentences of a turn, each as said (``Jo: …``); none for a single sentence."""
    sentences = [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]
    if len(sentences) < 2:
        return []
    return [f"{speaker}: {sentence}" if speaker else sentence for sentence in sentences]


def episode_vector(whole: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """The whole's vector plus the mean of its sentences', normalised."""
    if len(parts) == 0:
        return whole
    combined = whole + parts.mean(axis=0)
    return np.asarray(combined / np.linalg.norm(combined))


DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "sentence_vectors.md"


def _recall(ranked: list[str], gold: frozenset[str]) -> float:
    return len(set(ranked[:10]) & gold) / len(gold)


def _same_session(other: Episode | None, episode: Episode) -> bool:
    return (
        other is not None and episode.session_id is not None
        and other.session_id == episode.session_id
    )  # fmt: skip


def measure(data: EvalSet, scored: tuple[int, ...], workdir: Path) -> dict[str, float]:
    settings = load_settings(backend="sqlite", sqlite_path=workdir / f"{data.name}.db")
    embedder = make_embedder(settings)
    store = open_store(settings)
    whole: dict[str, np.ndarray] = {}
    folded: dict[str, np.ndarray] = {}
    gold_of: dict[str, str] = {}
    ids_of: dict[str, list[str]] = {}
    for user, items in data.episodes.items():
        episodes = [Episode(user_id=user, **item) for item in items]
        store.add_episodes(episodes)
        texts, parts = [], []
        for i, episode in enumerate(episodes):
            previous = episodes[i - 1] if i > 0 else None
            following = episodes[i + 1] if i + 1 < len(episodes) else None
            texts.append(
                episode_embedding_text(
                    episode,
                    previous if _same_session(previous, episode) else None,
                    following if _same_session(following, episode) else None,
                )
            )
            parts.append(episode_sentence_parts(episode.speaker, episode.text))
        vectors = embedder.embed(texts)
        flat = embedder.embed([p for ps in parts for p in ps])
        start = 0
        ids_of[user] = [e.id for e in episodes]
        for episode, vector, own in zip(episodes, vectors, parts, strict=True):
            gold_of[episode.id] = episode.metadata["gold_id"]
            whole[episode.id] = vector
            folded[episode.id] = episode_vector(vector, flat[start : start + len(own)])
            start += len(own)
    questions = [q for q in data.questions if q.category in scored]
    asked = embed_queries(embedder, [q.question for q in questions])
    recalls: dict[str, list[float]] = {}
    for q, vector in zip(questions, asked, strict=True):
        ids = ids_of[q.user_id]
        lexical = [
            gold_of[h.ref_id]
            for h in store.lexical_search(q.user_id, q.question, [VectorKind.EPISODE], k=50)
        ]
        for name, table in (("whole", whole), ("folded", folded)):
            matrix = np.stack([table[e] for e in ids])
            dense = [gold_of[ids[i]] for i in np.argsort(-(matrix @ vector))[:50]]
            fused: dict[str, float] = {}
            for ranking in (dense, lexical):
                for rank, gold in enumerate(ranking):
                    fused[gold] = fused.get(gold, 0.0) + 1 / (60 + rank)
            recalls.setdefault(f"dense, {name}", []).append(_recall(dense, q.gold))
            top = sorted(fused, key=lambda g: -fused[g])[:10]
            recalls.setdefault(f"dense + BM25 (RRF), {name}", []).append(_recall(top, q.gold))
    store.close()
    return {name: round(float(np.mean(values)), 4) for name, values in recalls.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DATA / "locomo_dev.json")
    parser.add_argument("--madial", type=Path, default=DATA / "madial_zh_dev.json")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = {
            "LoCoMo dev (categories 1-4)": measure(
                load_locomo(args.locomo), (1, 2, 3, 4), Path(tmp)
            ),
            "MADial zh dev": measure(load_madial(args.madial), (0,), Path(tmp)),
        }
    names = list(next(iter(rows.values())))
    lines = [
        "Episode vectors: the whole turn, or the whole plus the mean of its sentences "
        "(`benchmarks/micro/sentence_vectors.py`). Recall@10 of episodes.",
        "",
        "| set | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
        *(
            f"| {set_name} | " + " | ".join(f"{figures[n]:.3f}" for n in names) + " |"
            for set_name, figures in rows.items()
        ),
    ]
    table = "\n".join(lines)
    print(table)
    args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()

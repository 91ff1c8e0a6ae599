"""How much a question naming only what a memory never held says about its matches.

For every LoCoMo dev question, asked of its own conversation's memory (categories 1-4,
where its evidence is) and of the next conversation's (where nothing is relevant), this
counts the questions whose names (``memory_platform.retrieval.names``) that memory never
holds. The log of the ratio of the two rates, with one added to each count, is the log
odds relevance takes for it (``RelevanceModel.unknown_names``). Only dev data is read. ::

    .venv/bin/python benchmarks/micro/unknown_names.py --db eval.db  # a store of `eval --workdir`
    .venv/bin/python benchmarks/micro/unknown_names.py               # ingests (about 1 minute)
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import load_locomo
from memory_platform.config import load_settings
from memory_platform.models import VectorKind
from memory_platform.retrieval.names import named_words, unknown_names

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="reuse a store holding LoCoMo dev")
    args = parser.parse_args()
    locomo = load_locomo(DATA / "locomo_dev.json")
    users = list(locomo.episodes)
    next_user = {u: users[(i + 1) % len(users)] for i, u in enumerate(users)}
    kinds = [VectorKind.MEMORY, VectorKind.EPISODE]
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "names.db"
        # the lexical index is all this needs: no embedding is waited for
        with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=path)) as mp:
            if args.db is None:
                for user, items in locomo.episodes.items():
                    mp.add_episodes(user, items)

            def unknown(question: str, user: str) -> bool:
                return unknown_names(
                    question,
                    user,
                    [],
                    lambda name: bool(mp.store.lexical_search(user, name, kinds, 1)),
                )

            scored = [q for q in locomo.questions if q.category in locomo.scored_categories]
            own = [q.question for q in scored if unknown(q.question, q.user_id)]
            other = sum(unknown(q.question, next_user[q.user_id]) for q in locomo.questions)
            named = sum(bool(named_words(q.question)) for q in locomo.questions)
    own_rate = (len(own) + 1) / (len(scored) + 2)
    other_rate = (other + 1) / (len(locomo.questions) + 2)
    print(f"questions naming someone or something: {named} of {len(locomo.questions)}")
    print(
        f"names unknown to their own memory: {len(own)} of {len(scored)} (categories 1-4)"
        + (f": {'; '.join(own)}" if own else "")
    )
    print(f"names unknown to the next conversation's memory: {other} of {len(locomo.questions)}")
    print(
        f"log odds: ln({own_rate:.5f} / {other_rate:.4f}) = {math.log(own_rate / other_rate):.2f}"
    )


if __name__ == "__main__":
    main()

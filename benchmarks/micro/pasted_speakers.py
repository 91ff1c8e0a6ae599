"""Microbenchmark: LoCoMo's dev conversations stored with the speaker pasted into each
turn's text ("Caroline: …") and no ``speaker`` field, against the documented way.

``memory-platform eval locomo`` stores each turn's speaker in the ``speaker`` field, as
the docs say. A user who imports a transcript often leaves the name in the text instead;
:mod:`memory_platform.speaker_tags` then fills the field. Each way is stored in a store
of its own (every dev conversation, one user each, one ``add_episodes`` call per
conversation) and its questions of categories 1-4 are searched with ``mp.search`` and its
defaults, access recording off; the figure is recall@10 as the evaluation reports it. ::

    .venv/bin/python benchmarks/micro/pasted_speakers.py  # about 10 minutes on 2 cores

Writes a Markdown table (default ``benchmarks/results/pasted_speakers.md``).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import Report, out_path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import load_locomo
from memory_platform.config import load_settings

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "pasted_speakers.md"
LOCOMO_DEV = HERE.parents[2] / "shared" / "data" / "locomo_dev.json"

WAYS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "speaker in the field (documented)": lambda turn: turn,
    "speaker pasted into the text, no field": lambda turn: {
        **turn,
        "text": f"{turn['speaker']}: {turn['text']}",
        "speaker": None,
    },
}
"""How each way stores a turn, given as ``eval locomo`` stores it."""


def recall_at_10(way: Callable[[dict[str, Any]], dict[str, Any]], workdir: Path) -> float:
    """Recall@10 (categories 1-4) of the dev conversations stored ``way``."""
    data = load_locomo(LOCOMO_DEV)
    recalls = []
    with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=workdir / "m.db")) as mp:
        for user, turns in data.episodes.items():
            mp.add_episodes(user, [way(turn) for turn in turns])
            mp.wait_for_indexing(user)
        for q in data.questions:
            if q.category in data.scored_categories:
                found = mp.search(q.user_id, q.question, record_access=False)
                top = [r.metadata.get("gold_id") for r in found][:10]
                recalls.append(len(q.gold.intersection(top)) / len(q.gold))
    return sum(recalls) / len(recalls)


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        "LoCoMo dev's 760 questions of categories 1-4, the turns stored two ways "
        "(`benchmarks/micro/pasted_speakers.py`); recall@10 through `mp.search`.",
        ["turns stored with", "recall@10"],
    )
    for label, way in WAYS.items():
        with tempfile.TemporaryDirectory() as tmp:
            table.add(label, f"{recall_at_10(way, Path(tmp)):.3f}")
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()

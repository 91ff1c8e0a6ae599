"""Microbenchmark: LoCoMo dev with long texts between its turns, as an agent's chat has
long assistant replies between the user's short statements.

Into each of the first conversations (``--limit``, default 2), after every ``--every``-th
turn (default 4), a turn of about 300 to 1,000 characters is inserted as the assistant's:
a session summary of another dev conversation (other people, no gold evidence). The
questions are LoCoMo's own, asked through ``mp.search`` with its defaults, as
``memory-platform eval`` does (recall@10 of categories 1-4, off-topic direct results per
question asked of the next conversation's user, dense and BM25 alone beside it). Run it
on two versions of the code to compare them (the fold in the results was an uncommitted
change, described there). Results: ``results/long_neighbours.md``.

With ``--speaker NAME`` a named speaker says the inserted turns: an assistant's turns
leave the memory's owner unnamed, so a question naming strangers is no evidence against
its matches (``retrieval.names``), and a named speaker keeps it (off-topic 0.59 against
0.02 in the results). ::

    .venv/bin/python benchmarks/micro/long_neighbours.py [--limit 2] [--every 4] [--speaker Sam]  # ~6 min
"""

from __future__ import annotations

import argparse
import json
import tempfile
from itertools import cycle
from pathlib import Path

from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.retrieval_eval import EvalSet, evaluate_set

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo_dev.json"


def with_long_turns(
    data: EvalSet, summaries: list[str], every: int, speaker: str = "assistant"
) -> EvalSet:
    """The set with a long turn of ``speaker`` after every ``every``-th turn of each session."""
    texts = cycle(summaries)
    episodes = {}
    for user, items in data.episodes.items():
        out = []
        for n, item in enumerate(items, start=1):
            out.append(item)
            if n % every == 0:
                out.append({**item, "text": next(texts), "speaker": speaker,
                            "metadata": {"gold_id": f"long-{user}-{n}"}})  # fmt: skip
        episodes[user] = out
    return EvalSet(data.name, episodes, data.questions, data.categories,
                   data.scored_categories, data.scored_label)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument(
        "--speaker",
        default="assistant",
        help="who says the inserted turns: an assistant's turns leave the memory's owner "
        "unnamed, so names are no evidence (a named speaker, e.g. Sam, keeps them)",
    )
    args = parser.parse_args()
    data = load_locomo(DATA, limit=args.limit)
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    summaries = [text for conv in raw[args.limit :] for text in conv["session_summary"].values()]
    longer = with_long_turns(data, summaries, args.every, args.speaker)
    with tempfile.TemporaryDirectory() as folder:
        mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
        report = evaluate_set(mp, longer, progress=print)
        mp.close()
    inserted = sum(len(v) for v in longer.episodes.values()) - sum(
        len(v) for v in data.episodes.values()
    )
    print(f"\n{inserted} long turns inserted among {sum(map(len, data.episodes.values()))}")
    print("| method | recall@10 (categories 1-4) |")
    print("|---|---|")
    for name, section in report["methods"].items():
        print(f"| {name} | {section['all']['recall@10']:.3f} |")
    off = report.get("off_topic", {})
    print(f"\noff-topic: {off.get('direct_per_query')} direct results per question")
    print(f"per user: {json.dumps(report['per_user'])}")


if __name__ == "__main__":
    main()

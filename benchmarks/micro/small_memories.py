"""Small memories: a handful of notes that all name their person. Is the right one first?

An agent's memory often starts as a few notes about one person ("Alice works as a nurse",
"Alice is allergic to peanuts"). Every note then shares the person's name with a
question about them, so the name says nothing about which note answers. Here each
session of the LoCoMo dev conversations becomes one small memory: its ``observation``
facts (the facts an LLM drew from the session, each naming its speaker) stored as notes
(``add_episodes`` without a speaker, as the LangGraph store writes items), and the
questions of categories 1-4 whose evidence turns all have observations in that session
are asked with ``mp.search`` and its defaults. A note is right when it is an observation
of an evidence turn. Reported: the share of questions whose first result is right
(recall@1), whose first three hold a right one (hit@3), the mean reciprocal rank of the
first right note, and the direct results per question: the ranking among few, comparable
notes, which the dev sets' conversations of hundreds of turns do not show. Then four
hand-written notes about Alice and six questions that share only her name with them, or
nothing, each result list printed. Only dev data is read. ::

    .venv/bin/python benchmarks/micro/small_memories.py   # about 3 minutes
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import normalize_dia_ids
from memory_platform.config import load_settings

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"


def main() -> None:
    conversations = json.loads(DATA.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "small.db")
        with MemoryPlatform(settings) as mp:
            turns_of: dict[str, set[str]] = {}
            held: dict[str, set[str]] = {}  # user -> evidence turns its notes hold
            for sample in conversations:
                for key, by_speaker in sample["observation"].items():
                    n = re.search(r"session_(\d+)", key).group(1)  # type: ignore[union-attr]
                    user = f"small-{sample['sample_id']}-s{n}"
                    notes, sources = [], []
                    for facts in by_speaker.values():
                        for text, dia in facts:
                            notes.append({"text": text})
                            sources.append(
                                normalize_dia_ids([dia] if isinstance(dia, str) else dia)
                            )
                    for note_id, turns in zip(mp.add_episodes(user, notes), sources, strict=True):
                        turns_of[note_id] = turns
                        held.setdefault(user, set()).update(turns)
            mp.wait_for_indexing(timeout=3600)
            asked = []
            for sample in conversations:
                for qa in sample["qa"]:
                    gold = normalize_dia_ids(qa.get("evidence", []))
                    if int(qa["category"]) not in (1, 2, 3, 4) or not gold:
                        continue
                    users = [u for u, turns in held.items()
                             if u.startswith(f"small-{sample['sample_id']}-") and gold <= turns]  # fmt: skip
                    asked += [(user, qa["question"], gold) for user in users[:1]]
            first = three = reciprocal = direct = 0.0
            for user, question, gold in asked:
                results = mp.search(user, question, record_access=False)
                right = [bool(turns_of.get(r.id, set()) & gold) for r in results]
                first += bool(right[:1] and right[0])
                three += any(right[:3])
                reciprocal += next((1 / (i + 1) for i, ok in enumerate(right) if ok), 0.0)
                direct += sum(r.layer == "direct" for r in results)
            n = len(asked)
            print(f"{len(held)} memories of {len(turns_of) / len(held):.1f} notes on average, "
                  f"{n} questions")  # fmt: skip
            print(f"recall@1 {first / n:.3f}  hit@3 {three / n:.3f}  MRR {reciprocal / n:.3f}  "
                  f"direct results per question {direct / n:.2f}")  # fmt: skip
            alice(mp)


ALICE = (
    "Alice loves hiking in the Alps",
    "Alice is allergic to peanuts",
    "Alice works as a nurse in Berlin",
    "Alice's daughter is called Emma",
)
ALICE_QUESTIONS = (
    ("Does Alice like mountains?", 0),
    ("What is Alice's job?", 2),
    ("Alice hobbies", 0),
    ("Where does Alice work?", 2),
    ("Alice's kid's name", 3),
    ("What can't Alice eat?", 1),
)


def alice(mp: MemoryPlatform) -> None:
    """The four notes, and each question's results: which note comes where."""
    ids = mp.add_episodes("small-alice", [{"text": text} for text in ALICE])
    mp.wait_for_indexing("small-alice", timeout=600)
    for question, answer in ALICE_QUESTIONS:
        order = [ids.index(r.id) for r in mp.search("small-alice", question, record_access=False)]
        place = order.index(answer) + 1 if answer in order else None
        print(f"{question!r}: the note that answers it ({ALICE[answer]!r}) comes "
              f"{place or 'nowhere'} of {len(order)}")  # fmt: skip


if __name__ == "__main__":
    main()

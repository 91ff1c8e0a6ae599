"""LoCoMo dev's observations written as agent memories: do the questions find them?

The dev sets store turns and events as episodes; agents write memories
(``create_memory``). LoCoMo's ``observation`` field holds the facts an LLM drew from each
session ("Caroline attended an LGBTQ support group ...", with the ``dia_id`` of the turn
it comes from), which is what an agent's memory looks like. Each is written as a memory
of its conversation's user (subject: the speaker; topic: the rest of the sentence; its
session's date as the time), and each question of categories 1-4 whose evidence turns
have observations is asked with ``mp.search`` and its defaults: recall@10 over those
evidence turns (a turn is found when a direct result is one of its observations), with
the floor and without it, and the direct results per question asked of the next
conversation's user. Only dev data is read.

With ``--first-person`` each conversation belongs to its first speaker, as an agent's
memory belongs to its user: that speaker's observations are written with the subject
"user", and only the questions about that speaker (naming them, not the other) are asked,
with the name put in the first person ("What did Caroline research?" becomes "What did I
research?"). ::

    .venv/bin/python benchmarks/micro/observation_memories.py                  # about 7 minutes
    .venv/bin/python benchmarks/micro/observation_memories.py --first-person
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import defaultdict
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import normalize_dia_ids, session_time
from memory_platform.config import load_settings

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
_VERBS = {"does": "do", "has": "have", "is": "am", "was": "was"}


_PRONOUNS = {"she": "I", "he": "I", "her": "my", "his": "my", "him": "me", "herself": "myself"}


def first_person(question: str, name: str) -> str:
    """The question with ``name``, and the third person that stands for it, in the first
    person ("Caroline's" -> "my", "does Caroline" -> "do I", "her" -> "my")."""
    text = re.sub(rf"\b{re.escape(name)}['’]s\b", "my", question)
    text = re.sub(
        rf"\b(does|has|is|was) {re.escape(name)}\b",
        lambda m: f"{_VERBS[m.group(1)]} I",
        text,
    )
    text = re.sub(rf"\b{re.escape(name)}\b", "I", text)
    text = re.sub(
        r"\b(she|he|her|his|him|herself)\b", lambda m: _PRONOUNS[m.group(1).lower()], text
    )
    return text[:1].upper() + text[1:]


def about_the_user(fact: str, name: str) -> str:
    """An observation of the owner as an agent writes it: the name is "the user"."""
    return re.sub(rf"\b{re.escape(name)}\b", "the user", fact)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--first-person", action="store_true", help="the first speaker is the memory's user"
    )
    args = parser.parse_args()
    conversations = json.loads(DATA.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "observations.db")
        with MemoryPlatform(settings) as mp:
            evidence_of: dict[str, set[str]] = {}
            questions: list[tuple[str, str, int, set[str]]] = []
            users = []
            for sample in conversations:
                user = f"observations-{sample['sample_id']}"
                users.append(user)
                held: set[str] = set()
                owner = sample["conversation"]["speaker_a"] if args.first_person else None
                other = sample["conversation"]["speaker_b"]
                for key, by_speaker in sample["observation"].items():
                    n = re.search(r"session_(\d+)", key).group(1)  # type: ignore[union-attr]
                    when = session_time(sample["conversation"][f"session_{n}_date_time"])
                    for speaker, facts in by_speaker.items():
                        for text, dia in facts:
                            turns = normalize_dia_ids([dia] if isinstance(dia, str) else dia)
                            held |= turns
                            rest = text.removeprefix(speaker).strip() or text
                            if speaker == owner:
                                rest = about_the_user(rest, speaker)
                            memory_id = mp.create_memory(
                                user,
                                subject="user" if speaker == owner else speaker,
                                memory_type="fact",
                                topic=rest[:1000],
                                attributes={"time": when.date().isoformat()},
                                reference_time=when,
                            )
                            evidence_of[memory_id] = turns
                for qa in sample["qa"]:
                    gold = normalize_dia_ids(qa.get("evidence", [])) & held
                    question = qa["question"]
                    if owner is not None:
                        if owner not in question or other in question:
                            continue
                        question = first_person(question, owner)
                    if int(qa["category"]) in (1, 2, 3, 4) and gold:
                        questions.append((user, question, int(qa["category"]), gold))
            mp.wait_for_indexing(timeout=3600)
            next_user = {u: users[(i + 1) % len(users)] for i, u in enumerate(users)}
            for floor in (None, 0.0):
                recall: dict[int, list[float]] = defaultdict(list)
                off_topic = 0
                for user, question, category, gold in questions:
                    results = mp.search(user, question, record_access=False, min_relevance=floor)
                    direct = [r for r in results if r.layer == "direct"][:10]
                    found = {t for r in direct for t in evidence_of.get(r.id, set())}
                    recall[category].append(len(found & gold) / len(gold))
                    off_topic += sum(
                        r.layer == "direct"
                        for r in mp.search(
                            next_user[user], question, record_access=False, min_relevance=floor
                        )
                    )
                every = [x for values in recall.values() for x in values]
                by_category = ", ".join(
                    f"{c}: {sum(v) / len(v):.3f}" for c, v in sorted(recall.items())
                )
                label = "the default floor" if floor is None else "no floor"
                print(
                    f"{label}: recall@10 {sum(every) / len(every):.3f} over {len(every)} "
                    f"questions ({by_category}); off-topic "
                    f"{off_topic / len(questions):.2f} direct results per question"
                )


if __name__ == "__main__":
    main()

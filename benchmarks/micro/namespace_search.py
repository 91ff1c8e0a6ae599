"""A LangGraph store namespace searched while its user also has turns of chat on the same
topics.

The profile facts of ``store_values.py`` (ten per language, one item each in
``(user, "profile")``) are searched with ``owner_questions.py``'s twenty questions per
language through :class:`MemoryPlatformStore`, first alone and then beside 300 and 1,500
turns of the user's chat in which the assistant asks those questions again ("Quick
question: What music do you enjoy?") and nothing answers them: turns that match a question
far better than the fact answering it. Each question counts as found when its fact is
among the items returned (limit 10); the search time is the store's whole ``search`` call
(the question's embedding and the namespace's listing included), median and p95 over the
questions after one to warm up. ::

    .venv/bin/python benchmarks/micro/namespace_search.py  # about five minutes

Writes a Markdown table (default ``benchmarks/results/namespace_search.md``).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from owner_questions import QUESTIONS
from report import Report, out_path
from store_values import VALUES

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.integrations.langgraph_store import MemoryPlatformStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "namespace_search.md"
CHAT_TURNS = (0, 300, 1_500)
ASKING = {
    "en": ["Quick question: ", "Out of curiosity: ", "I meant to ask earlier: ", "Remind me, "],
    "zh": ["顺便问一下：", "我有点好奇：", "之前就想问：", "提醒我一下，"],
}


def chat(language: str, turns: int) -> list[str]:
    """``turns`` lines of an assistant asking the user the benchmark's questions again (in
    the second person, as an assistant asks), none answered: each shares a question's words
    and meaning far more than the fact that answers it does."""
    asked = [  # the questions in the first person, each asked by the assistant
        question.replace("I ", "you ").replace("my ", "your ").replace("我", "你")
        for question, _ in QUESTIONS[language][::2]
    ]
    prefixes = ASKING[language]
    return [
        prefixes[(i // len(asked)) % len(prefixes)] + asked[i % len(asked)] for i in range(turns)
    ]


def measure(store: MemoryPlatformStore, language: str, turns: int) -> list[object]:
    """One row: the questions found, found first, and the search's median and p95 ms."""
    user = f"ns-{language}-{turns}"
    namespace = (user, "profile")
    for number, value in enumerate(VALUES[language]):
        store.put(namespace, f"fact-{number}", value)
    lines = chat(language, turns)
    for start in range(0, len(lines), 100):
        store.platform.add_episodes(
            user,
            [
                {"text": t, "speaker": "me", "session_id": f"s{start}"}
                for t in lines[start : start + 100]
            ],
        )
    store.platform.wait_for_indexing(user)
    found, first, median, p95 = ask(
        store, namespace, [(question, f"fact-{index}") for question, index in QUESTIONS[language]]
    )
    asked = len(QUESTIONS[language])
    return [language, turns, f"{found} / {asked}", f"{first} / {asked}",
            f"{median:.1f}", f"{p95:.1f}"]  # fmt: skip


def ask(
    store: MemoryPlatformStore, namespace: tuple[str, ...], questions: list[tuple[str, str]]
) -> tuple[int, int, float, float]:
    """Each question asked of the namespace (after one to warm up), with the key of the
    item that answers it: how many find it, how many first, and the search's median and
    p95 ms (the question's embedding and the namespace's listing included)."""
    store.search(namespace, query=questions[0][0])  # warm up
    found = first = 0
    times = []
    for question, key in questions:
        store.platform.clear_query_cache()  # each search embeds its question
        started = time.perf_counter()
        keys = [item.key for item in store.search(namespace, query=question)]
        times.append((time.perf_counter() - started) * 1000)
        found += key in keys
        first += keys[:1] == [key]
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return found, first, statistics.median(times), p95


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        "A LangGraph store namespace of ten profile facts searched with twenty questions per "
        "language, beside turns of the user's chat in which the assistant asks the questions "
        "again, unanswered "
        "(`benchmarks/micro/namespace_search.py`).",
        ["language", "turns of chat", "questions finding their fact", "found first",
         "search median ms", "search p95 ms"],
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "ns.db")
        with MemoryPlatform(settings) as mp:
            store = MemoryPlatformStore(mp)
            for language in VALUES:
                for turns in CHAT_TURNS:
                    row = measure(store, language, turns)
                    print(row, flush=True)
                    table.add(*row)
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()

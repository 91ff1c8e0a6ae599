"""A LangGraph store namespace of thousands of items searched beside the user's chat.

``namespace_search.py`` searches ten profile facts; an agent that keeps every note it
takes in one namespace has thousands. Here the twenty profile facts of ``store_values.py``
(ten per language) sit in a namespace alone, in another among 2,000 and in a third among
12,000 other notes (meetings, errands, reading: none answers a question), all three the
same user's, while the user's chat, outside them, holds 1,500 turns in which the assistant
asks the questions again, unanswered (``namespace_search.chat``). Each of ``owner_questions.py``'s forty questions is asked of
each namespace through :class:`MemoryPlatformStore` (limit 10) and counts as found when
its fact is returned; the time is the store's whole ``search`` call (the question's
embedding and the namespace's listing included), median and p95 over the questions. ::

    .venv/bin/python benchmarks/micro/large_namespace.py --db /tmp/ns.db  # ~4 min to build

``--db`` keeps the store (built when the file does not exist), so old and new code can be
measured on the same one. Writes a Markdown table (default
``benchmarks/results/large_namespace.md``).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

from namespace_search import ask, chat
from owner_questions import QUESTIONS
from report import Report
from store_values import VALUES

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.integrations.langgraph_store import MemoryPlatformStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "large_namespace.md"
USER = "large-namespace"
SIZES = (0, 2_000, 12_000)
CHAT_TURNS = 750  # per language
_PEOPLE = ["Ravi", "Mia", "Chen", "Olga", "Tom", "小李", "王老师", "阿杰"]
_ENGLISH = [
    "Note {i}: call {who} about the {thing} budget before Friday",
    "Note {i}: {who} shared slides on the {thing} rollout",
    "Note {i}: pick up the {thing} order, reference {n}",
    "Note {i}: finished chapter {n} of the book on {thing}",
]
_CHINESE = [
    "第{i}条：周五前和{who}确认{thing}预算",
    "第{i}条：{who}发来了{thing}上线的材料",
    "第{i}条：去取{thing}订单，编号{n}",
    "第{i}条：读完了关于{thing}的书第{n}章",
]
_THINGS = ["warehouse", "invoice", "printer", "roadmap", "newsletter", "拖鞋", "发票", "打印机",
           "路线图", "简报"]  # fmt: skip


def notes(count: int, seed: int) -> list[str]:
    """``count`` notes of errands and work, half in each language, none answering any
    question asked."""
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        forms = _ENGLISH if i % 2 else _CHINESE
        lines.append(
            rng.choice(forms).format(
                i=i, who=rng.choice(_PEOPLE), thing=rng.choice(_THINGS), n=rng.randrange(1, 99)
            )
        )
    return lines


def build(store: MemoryPlatformStore) -> None:
    """Both namespaces, the facts in each, and the chat beside them."""
    for size in SIZES:
        namespace = (USER, f"notes-{size}")
        for language, values in VALUES.items():
            for number, value in enumerate(values):
                store.put(namespace, f"{language}-fact-{number}", value)
        for number, text in enumerate(notes(size, seed=size)):
            store.put(namespace, f"note-{number}", {"text": text})
    lines = [line for language in VALUES for line in chat(language, CHAT_TURNS)]
    for start in range(0, len(lines), 100):
        store.platform.add_episodes(
            USER,
            [
                {"text": t, "speaker": "me", "session_id": f"s{start}"}
                for t in lines[start : start + 100]
            ],
        )
    store.platform.wait_for_indexing(USER, timeout=3_600)


def measure(store: MemoryPlatformStore, size: int) -> list[object]:
    """One row: the questions finding their fact, found first, and the search's median
    and p95 ms."""
    asked = [(q, f"{language}-fact-{i}") for language, qs in QUESTIONS.items() for q, i in qs]
    found, first, median, p95 = ask(store, (USER, f"notes-{size}"), asked)
    return [size + 20, f"{found} / {len(asked)}", f"{first} / {len(asked)}",
            f"{median:.0f}", f"{p95:.0f}"]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--db", type=Path, help="store to keep and reuse (default: a temporary one)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    table = Report(
        "LangGraph store namespaces of one user holding twenty profile facts alone or among "
        "thousands of other notes, searched with forty questions (twenty per language) beside "
        "1,500 turns of chat that ask them again, unanswered "
        "(`benchmarks/micro/large_namespace.py`).",
        ["items in the namespace", "questions finding their fact", "found first",
         "search median ms", "search p95 ms"],
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "large.db"
        fresh = not db.exists()
        with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=db)) as mp:
            store = MemoryPlatformStore(mp)
            if fresh:
                build(store)
            for size in SIZES:
                row = measure(store, size)
                print(row, flush=True)
                table.add(*row)
    table.write(args.out)
    print(json.dumps({"written": str(args.out)}))


if __name__ == "__main__":
    main()

"""Short questions about when, as an agent asks them, of a diary of one turn a day.

"What did I buy yesterday?" is mostly its time words. A search matches those against
when things happened; embedded with the question they only move its vector away from
"I bought a lamp at IKEA", and the match can fall under the relevance floor: nothing is
found. Here a hand-written diary (twelve turns in each of English and Chinese, said one,
two, three days, a week, a month or a year before the asking, and a few said on a day
written out) is asked 31 questions that say when (relative words, a named day, a day in
numbers, a year, a season of a year, some marking what follows: "this summer's race",
去年的旅行), four that do not, and twelve that say when about
something the diary never held. A check, not a fit: nothing was tuned on it. ::

    .venv/bin/python benchmarks/micro/time_questions.py  # about 30 seconds

Per language: how many questions find their turn as a direct result (and first), the
mean relevance of that turn, and the direct results per question that nothing answers.
Writes a Markdown table (default ``benchmarks/results/time_questions.md``).
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from report import Report, out_path

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "time_questions.md"
ASKED_AT = datetime(2025, 11, 5, 20, tzinfo=UTC)  # a Wednesday evening

DIARY: dict[str, list[tuple[int | str, str]]] = {
    "en": [
        (1, "I bought a lamp at IKEA"),
        (2, "Had ramen for lunch with Anna"),
        (3, "We talked about the trip to Japan"),
        (9, "I watched Dune at the cinema"),
        (40, "I started learning the piano"),
        (400, "I went hiking in the Alps"),
        ("2025-05-07", "I adopted a kitten from the shelter"),
        ("2024-07-20", "I swam in the lake near my parents' house"),
        ("2023-02-11", "I moved into a flat in Leeds"),
        (15, "My sister Anna called about her new job"),
        (5, "I fixed the bike's flat tyre"),
        (120, "I ran a half marathon in Berlin"),
    ],
    "zh": [
        (1, "我中午吃了牛肉面"),
        (2, "我和小红去看了电影"),
        (3, "我们聊了去日本旅行的事"),
        (8, "我买了一双跑鞋"),
        (35, "我开始学游泳"),
        (380, "我去云南旅游了"),
        ("2025-05-07", "我在宠物店领养了一只小猫"),
        ("2024-07-20", "我在海边晒伤了"),
        ("2023-02-11", "我搬进了杭州的新公寓"),
        (15, "我妹妹换了新工作"),
        (5, "我修好了自行车"),
        (120, "我参加了马拉松比赛"),
    ],
}
"""Turns of the diary: said that many days before the asking, or on that day (noon)."""

QUESTIONS = {
    "en": [
        ("What did I buy yesterday?", 0),
        ("Who did I have lunch with two days ago?", 1),
        ("What did we talk about three days ago?", 2),
        ("What did I watch last week?", 3),
        ("What did I start learning last month?", 4),
        ("Where did I go hiking last year?", 5),
        ("What did I adopt on May 7, 2025?", 6),
        ("What did I adopt on 2025/5/7?", 6),
        ("What did I adopt on 5/7/2025?", 6),
        ("Where did I swim in summer 2024?", 7),
        ("Where did I move in 2023?", 8),
        ("Who called me two weeks ago?", 9),
        ("What did I fix on Friday?", 10),
        ("What race did I run this summer?", 11),
        ("What did I buy?", 0),
        ("What did I watch at the cinema?", 3),
        ("Where was this summer's race?", 11),
        ("Who joined the day before yesterday's lunch?", 1),
    ],
    "zh": [
        ("我昨天中午吃了什么?", 0),
        ("我前天和小红做了什么?", 1),
        ("我们三天前聊了什么?", 2),
        ("我上周买了什么?", 3),
        ("我上个月开始学什么?", 4),
        ("我去年去哪旅游了?", 5),
        ("我2025年5月7日领养了什么?", 6),
        ("我2025/5/7领养了什么?", 6),
        ("我2024年夏天在哪晒伤了?", 7),
        ("我2023年搬去了哪里?", 8),
        ("我妹妹两周前怎么了?", 9),
        ("我上周五修好了什么?", 10),
        ("我今年夏天参加了什么比赛?", 11),
        ("我吃了什么?", 0),
        ("我买了什么?", 3),
        ("去年的旅行我去了哪里?", 5),
        ("前天的电影我是和谁看的?", 1),
    ],
}
"""Questions and the turn of the diary that answers each."""

UNANSWERED = {
    "en": [
        "What did I cook yesterday?",
        "Which museum did I visit last week?",
        "What did my boss say two days ago?",
        "Who did I meet on October 13, 2025?",
        "What did I paint in summer 2024?",
        "Which concert did I go to last month?",
    ],
    "zh": [
        "我昨天做了什么菜?",
        "我上周去了哪个博物馆?",
        "我老板前天说了什么?",
        "我2025年10月13日见了谁?",
        "我2024年夏天画了什么?",
        "我上个月去听了什么音乐会?",
    ],
}
"""Questions that say when about something the diary never held."""


def said_at(when: int | str) -> datetime:
    """When a turn was said: ``when`` days before the asking, or noon of that date."""
    if isinstance(when, int):
        return ASKED_AT - timedelta(days=when, hours=6)
    return datetime.fromisoformat(f"{when}T12:00:00+00:00")


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        "Short questions about when (`benchmarks/micro/time_questions.py`): a diary of twelve "
        "turns per language, asked at 2025-11-05 20:00 UTC (`reference_time`), `mp.search` "
        f"defaults (generated {datetime.now(UTC):%Y-%m-%d}):",
        [
            "language",
            "questions",
            "found directly (first)",
            "answer's mean relevance",
            "direct results per question nothing answers",
        ],
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "time.db")
        with MemoryPlatform(settings) as mp:
            for language, diary in DIARY.items():
                user = f"diary-{language}"
                turns = [
                    {"text": text, "speaker": "me", "timestamp": said_at(when)}
                    for when, text in diary
                ]
                ids = mp.add_episodes(user, turns)
                mp.wait_for_indexing(user)
                found = first = 0
                relevance = 0.0
                for question, answer in QUESTIONS[language]:
                    results = mp.search(
                        user, question, reference_time=ASKED_AT, record_access=False
                    )
                    direct = [r for r in results if r.layer == "direct"]
                    found += ids[answer] in {r.id for r in direct}
                    first += bool(direct) and max(direct, key=lambda r: r.score).id == ids[answer]
                    relevance += next((r.relevance for r in results if r.id == ids[answer]), 0.0)
                stray = sum(
                    sum(r.layer == "direct" for r in mp.search(
                        user, question, reference_time=ASKED_AT, record_access=False
                    ))
                    for question in UNANSWERED[language]
                )  # fmt: skip
                asked = len(QUESTIONS[language])
                table.add(
                    language,
                    asked,
                    f"{found} ({first})",
                    f"{relevance / asked:.2f}",
                    f"{stray / len(UNANSWERED[language]):.2f}",
                )
    table.write(out)


if __name__ == "__main__":
    main()

"""Structured values in the LangGraph store, asked about as their owner asks.

An agent that keeps a profile in LangGraph's store writes fields rather than sentences:
``{"favorite_food": "sushi"}``, ``{"allergies": ["peanuts"]}``. The ten facts per
language of ``owner_questions.py`` are put so (one item each, in the user's namespace,
through :class:`MemoryPlatformStore`, ``put`` naming no fields), and its twenty questions
per language are searched through the store, as are its questions that nothing answers
and about other people. A
check, not a fit: the values were written before anything was measured on them. ::

    .venv/bin/python benchmarks/micro/store_values.py  # about 20 seconds

Prints, per language, how many questions find their item (and first), and the items per
question that nothing answers and per question about someone else (John, Lisa).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from owner_questions import OTHERS, QUESTIONS, UNANSWERED

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.integrations.langgraph_store import MemoryPlatformStore

VALUES: dict[str, list[dict[str, Any]]] = {
    "en": [
        {"favorite_food": "sushi"},
        {"pet": "dog", "pet_name": "Rex", "adopted": "2025-10"},
        {"occupation": "software engineer"},
        {"city": "Berlin"},
        {"dislikes": ["horror movies"]},
        {"sport": "running", "marathons_run": 1, "last_marathon": "April 2024"},
        {"allergies": ["peanuts"]},
        {"siblings": [{"relation": "sister", "name": "Anna"}]},
        {"injury": "broken left arm", "when": "January 2024"},
        {"music": "jazz"},
    ],
    "zh": [
        {"喜欢的运动": "游泳"},
        {"宠物": "猫"},
        {"职业": "老师"},
        {"居住城市": "上海", "搬家时间": "2025-03"},
        {"讨厌": ["下雨天"]},
        {"过敏原": ["花粉"]},
        {"考试": "没通过", "时间": "2025-06"},
        {"孩子": [{"关系": "女儿", "年龄": 3}]},
        {"饮品偏好": "绿茶"},
        {"汽车": "特斯拉"},
    ],
}
"""The facts of ``owner_questions.MEMORIES``, in the same order, as profile fields."""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "values.db")
        with MemoryPlatform(settings) as mp:
            store = MemoryPlatformStore(mp)
            for language, values in VALUES.items():
                namespace = (f"store-values-{language}", "profile")
                for number, value in enumerate(values):
                    store.put(namespace, f"fact-{number}", value)
                found = first = 0
                for question, index in QUESTIONS[language]:
                    keys = [item.key for item in store.search(namespace, query=question)]
                    found += f"fact-{index}" in keys
                    first += keys[:1] == [f"fact-{index}"]
                print(
                    f"{language}: found {found} of {len(QUESTIONS[language])} (first {first}); "
                    f"questions nothing answers: {_per_question(store, namespace, UNANSWERED)} "
                    "items each; questions about other people: "
                    f"{_per_question(store, namespace, OTHERS)}"
                )


def _per_question(
    store: MemoryPlatformStore, namespace: tuple[str, str], questions: dict[str, list[str]]
) -> str:
    """Items found per question, for the questions of the namespace's language."""
    asked = questions[namespace[0].rsplit("-", 1)[1]]
    return f"{sum(len(store.search(namespace, query=q)) for q in asked) / len(asked):.2f}"


if __name__ == "__main__":
    main()

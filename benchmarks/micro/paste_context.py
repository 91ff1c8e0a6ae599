"""Microbenchmark: what a turn's long neighbours do to its vector, and two answers to it
that were measured and not adopted.

An episode is embedded between the whole turns before and after it
(``episode_embedding_text``). A short statement between a long assistant reply and a
pasted page is then embedded mostly as them. Answers measured:

- **fold**: a turn of conversational length (at most 500 characters) beside a longer one
  is embedded as itself too, the two unit vectors summed and scaled back to unit length
  (weight 1, or 0.5 for the turn's own);
- **cut**: each neighbour cut to the part nearest the turn, at most as long as the turn or
  ``floor`` characters, whichever is more (its end before, its beginning after).

Eight short statements (four English, four Chinese), each after a reply of about 1,200
characters and before a page of about 3,000, and a question about each, with the default
embedder. Per rule: the mean cosine of the question to the statement's vector, its rank
among the conversation's 24 turns (the turns next to it hold it as context too, so 2 is
as good as 1), the characters embedded and the seconds, and how many of the dev sets'
turns the rule changes (with none changed, the dev figures stand). The cosine to the
statement embedded alone is the reference. What the fold does to a whole conversation
(recall, off-topic) is ``long_neighbours.py``'s. Results: ``results/paste_context.md``.

    .venv/bin/python benchmarks/micro/paste_context.py   # ~5 minutes
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.embeddings import default_ensemble, embed_queries, normalize_rows
from memory_platform.models import Episode
from memory_platform.store.base import spoken_line

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

FACTS = [
    ("By the way, I adopted a kitten last week and named her Milo.",
     "What did I name my kitten?"),
    ("I'm allergic to peanuts, so please keep that in mind.", "What am I allergic to?"),
    ("My sister Jenna moves to Lisbon in September.", "Where is my sister moving?"),
    ("I switched to the night shift at the hospital.", "Which shift do I work now?"),
    ("对了，我上周开始学钢琴了。", "我最近在学什么乐器？"),
    ("我对芒果过敏。", "我对什么水果过敏？"),
    ("我女儿下个月要去北京上大学。", "我女儿去哪里读书？"),
    ("我把车卖了，现在每天骑车上班。", "我现在怎么上班？"),
]  # fmt: skip

_REPLY_EN = (
    "That is a great question. There are several things to consider when planning a budget "
    "for the quarter: fixed costs such as rent and salaries, variable costs that follow "
    "sales, and a reserve for the unexpected. "
)
_PAGE_EN = (
    "Section {n}: the quarterly revenue of the northern region grew by {n} percent while "
    "logistics costs stayed flat and the board approved the new warehouse budget. "
)
_REPLY_ZH = "这是个好问题。制定季度预算时需要考虑几件事：房租和工资等固定成本，随销售变化的可变成本，以及应对意外的储备金。"
_PAGE_ZH = (
    "第{n}节：北方地区的季度收入增长了百分之{n}，物流成本保持不变，董事会批准了新仓库的预算。"
)


def long_texts(chinese: bool) -> tuple[str, str]:
    """A reply of about 1,200 characters and a page of about 3,000 (a third of that in
    Chinese, which says as much in about a third of the characters)."""
    reply, page, scale = (_REPLY_ZH, _PAGE_ZH, 3) if chinese else (_REPLY_EN, _PAGE_EN, 1)
    pages = "".join(page.format(n=n) for n in range(1, 200))
    return (reply * 20)[: 1200 // scale], pages[: 3000 // scale]


def conversation() -> list[Episode]:
    """The statements, each between a long reply before it and a pasted page after it."""
    turns = []
    at = datetime(2024, 3, 1, tzinfo=UTC)
    for i, (fact, _) in enumerate(FACTS):
        reply, page = long_texts(chinese=i >= 4)
        for speaker, text in (("assistant", reply), ("user", fact), ("user", page)):
            at += timedelta(minutes=1)
            turns.append(Episode(user_id="u", session_id="s", text=text, speaker=speaker,
                                 timestamp=at))  # fmt: skip
    return turns


def composed(turns: list[Episode], floor: int | None) -> list[str]:
    """Each turn's embedded text: between its whole neighbours (``floor`` None, the
    shipped rule) or between neighbours cut to max(len(turn), floor) characters."""
    lines = [spoken_line(t) for t in turns]
    out = []
    for i, own in enumerate(lines):
        before = lines[i - 1] if i else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if floor is not None:
            budget = max(len(own), floor)
            before, after = before[max(0, len(before) - budget) :], after[:budget]
        out.append("\n".join(line for line in (before, own, after) if line))
    return out


@cache
def dev_conversations() -> list[list[Episode]]:
    """Each dev user's turns in order (LoCoMo and MADial), sessions run together: every
    real pair of neighbours is in them."""
    sets = (load_locomo(DATA / "locomo_dev.json"), load_madial(DATA / "madial_zh_dev.json"))
    return [
        [Episode(user_id="u", text=item["text"], speaker=item.get("speaker")) for item in items]
        for data in sets
        for items in data.episodes.values()
    ]


def dev_turns(floor: int) -> tuple[int, int]:
    """Of the dev sets' turns, how many the cut would change, and how many there are."""
    changed = sum(
        cut != whole
        for turns in dev_conversations()
        for cut, whole in zip(composed(turns, floor), composed(turns, None), strict=True)
    )
    return changed, sum(map(len, dev_conversations()))


def folded_lines(turns: list[Episode]) -> list[str | None]:
    """Per turn, its own line where the fold embeds it as itself too (at most
    ``CONVERSATIONAL`` characters beside a longer neighbour), else None."""
    lines = [spoken_line(t) for t in turns]
    out: list[str | None] = []
    for i, own in enumerate(lines):
        neighbours = [lines[j] for j in (i - 1, i + 1) if 0 <= j < len(lines)]
        longer = any(len(n) > CONVERSATIONAL for n in neighbours)
        out.append(own if longer and len(own) <= CONVERSATIONAL else None)
    return out


def fold(
    embedder: Any, texts: list[str], lines: list[str | None], weight: float
) -> npt.NDArray[np.float32]:
    """The contextual vectors, each with its turn's own line folded in where it has one."""
    vectors = np.array(embedder.embed(texts), dtype=np.float32)
    at = [i for i, line in enumerate(lines) if line is not None]
    if at:
        alone = embedder.embed([lines[i] or "" for i in at])
        vectors[at] = normalize_rows(vectors[at] + weight * alone)
    return vectors


def dev_turns_folded() -> tuple[int, int]:
    """Of the dev sets' turns, how many the fold embeds as themselves too."""
    folded = sum(line is not None for turns in dev_conversations() for line in folded_lines(turns))
    return folded, sum(map(len, dev_conversations()))


CONVERSATIONAL = 500
"""Characters of a conversational turn: above every dev turn (LoCoMo's longest spoken line
is 444, MADial's 66), so the fold changes none of them."""

FLOORS = (None, 500, 300, 200, 100, 50, 0)


def main() -> None:
    embedder = default_ensemble()
    turns = conversation()
    questions = embed_queries(embedder, [question for _, question in FACTS])
    alone = embedder.embed([fact for fact, _ in FACTS])
    embedder.embed(composed(turns, None)[:3])  # warm
    reference = statistics.mean(float(q @ v) for q, v in zip(questions, alone, strict=True))
    print(
        "| neighbours of a turn | mean cosine, question to statement | statement's rank among "
        "the 24 turns (each question) | characters embedded | seconds | dev turns changed |"
    )
    print("|---|---|---|---|---|---|")
    print(f"| none: the statement alone (reference) | {reference:.3f} | – | – | – | – |")
    whole = composed(turns, None)
    lines = folded_lines(turns)
    folded_chars = sum(map(len, whole)) + sum(len(line or "") for line in lines)
    dev_folded = "{} of {}".format(*dev_turns_folded())
    rows: list[tuple[str, Callable[[], Any], int, str]] = [
        (f"whole, the turn's own line folded in at weight {weight} (not adopted)",
         partial(fold, embedder, whole, lines, weight), folded_chars, dev_folded)
        for weight in (1.0, 0.5)
    ]  # fmt: skip
    for floor in FLOORS:
        texts = composed(turns, floor)
        rows.append((
            "whole (shipped)" if floor is None
            else f"cut to max(turn, {floor}) characters (not adopted)",
            partial(embedder.embed, texts),
            sum(map(len, texts)),
            "–" if floor is None else "{} of {}".format(*dev_turns(floor)),
        ))  # fmt: skip
    for rule, embed, characters, changed in rows:
        started = time.perf_counter()
        vectors = embed()
        seconds = time.perf_counter() - started
        facts = vectors[1::3]
        cosine = statistics.mean(float(q @ v) for q, v in zip(questions, facts, strict=True))
        ranks = [1 + int(np.sum(vectors @ q > q @ facts[i])) for i, q in enumerate(questions)]
        print(f"| {rule} | {cosine:.3f} | {' '.join(map(str, ranks))} | {characters:,}"
              f" | {seconds:.1f} | {changed} |")  # fmt: skip


if __name__ == "__main__":
    main()

"""LoCoMo dev's dated questions asked as a user would ask them then: "yesterday", "last
month".

A question that names its date ("What did Maria donate to a homeless shelter in December
2023?") favours what was said then. People rarely name the date of yesterday; they say
"yesterday", and the search's ``reference_time`` says when they asked. Here each dev
question (categories 1-4) that names one day ("on 7 July, 2023") or one month ("in June
2023"), and nothing else of when, is asked four ways, all at the same ``reference_time``
(noon the day after that day, or the 15th of the month after that month) of the same
store:

- as written, with its date;
- without its date (what a search knows when it cannot read the relative word);
- with the date said relative to the asking: "yesterday" or "last month";
- the same, with relative words not read (``relative_spans`` returning none);
- for a day, written in numbers: year first ("on 2023/7/7", as in China) and month
  first ("on 7/7/2023", as in the United States; read as both days it may be).

Nothing was tuned on it. ::

    .venv/bin/python benchmarks/micro/relative_dates.py  # about 8 minutes

Writes a Markdown table (default ``benchmarks/results/relative_dates.md``).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

from report import Report, out_path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.retrieval_eval import EvalQuestion
from memory_platform.config import load_settings
from memory_platform.retrieval import retriever
from memory_platform.timeparse import _DATED, named_dates

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "relative_dates.md"
LOCOMO_DEV = HERE.parents[2] / "shared" / "data" / "locomo_dev.json"
_OTHER_TIME = re.compile(r"\b(?:before|after|by|since|as of|until|week|weekend|last|next)\b", re.I)
"""Questions whose date frames another span ("the week before August 3, 2023") are left
out: said relative to the asking, they would need more than one word changed."""


def rewritten(q: EvalQuestion) -> tuple[str, str, datetime, tuple[str, str] | None] | None:
    """The question without its date, with it said relative to the asking, when it is
    asked, and for a day the question with the day in numbers (year first, month first);
    None for a question that does not name exactly one day or month."""
    named = named_dates(q.question)
    matches = list(_DATED.finditer(q.question))
    if len(named.spans) != 1 or named.yearless_days or len(matches) != 1:
        return None
    if _OTHER_TIME.search(q.question):
        return None
    match = matches[0]
    before = q.question[: match.start()].rstrip()
    preposition = re.search(r"\b(on|in)$", before)
    if preposition is None:
        return None
    start, end = named.spans[0]
    head, tail = before[: preposition.start()].rstrip(), q.question[match.end() :]
    numbers = None
    if end - start == timedelta(days=1):
        relative, asked_at = "yesterday", start + timedelta(days=1, hours=12)
        y, m, d = start.year, start.month, start.day
        numbers = (f"{head} on {y}/{m}/{d}{tail}", f"{head} on {m}/{d}/{y}{tail}")
    else:
        relative, asked_at = "last month", end + timedelta(days=14, hours=12)
    return f"{head}{tail}", f"{head} {relative}{tail}", asked_at, numbers


@contextmanager
def relative_words_unread() -> Iterator[None]:
    """Searches that do not read relative time words (the platform before it did)."""
    with mock.patch.object(retriever, "relative_spans", return_value=[]):
        yield


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    data = load_locomo(LOCOMO_DEV, None)
    asked = []
    for q in data.questions:
        if q.category in (1, 2, 3, 4) and (forms := rewritten(q)) is not None:
            asked.append((q, *forms))
    users = sorted({q.user_id for q, *_ in asked})
    ways = ["as written", "date left out", "relative, read", "relative, not read"]
    day_ways = [
        "a day, as written",
        "a day in numbers, year first",
        "a day in numbers, month first",
    ]
    recall = dict.fromkeys(ways + day_ways, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "relative.db")
        with MemoryPlatform(settings) as mp:
            gold_of: dict[str, str] = {}
            for user in users:
                items = data.episodes[user]
                for ref, item in zip(mp.add_episodes(user, items), items, strict=True):
                    gold_of[ref] = item["metadata"]["gold_id"]
                print(f"{user}: {len(items)} turns stored", flush=True)
            mp.wait_for_indexing(timeout=3600)

            def found(q: EvalQuestion, text: str, at: datetime) -> float:
                results = mp.search(q.user_id, text, reference_time=at, record_access=False)
                ids = [gold_of[r.id] for r in results if r.id in gold_of][:10]
                return len(set(ids) & q.gold) / len(q.gold)

            for q, undated, relative, at, numbers in asked:
                if numbers is not None:
                    recall["a day, as written"] += found(q, q.question, at)
                    recall["a day in numbers, year first"] += found(q, numbers[0], at)
                    recall["a day in numbers, month first"] += found(q, numbers[1], at)
                recall["as written"] += found(q, q.question, at)
                recall["date left out"] += found(q, undated, at)
                recall["relative, read"] += found(q, relative, at)
                with relative_words_unread():
                    recall["relative, not read"] += found(q, relative, at)
    days = sum(1 for *_, numbers in asked if numbers is not None)
    table = Report(
        f"LoCoMo dev's questions that name one day or month ({len(asked)} questions of "
        f'{len(users)} conversations: {days} days asked as "yesterday", '
        f'{len(asked) - days} months as "last month"), asked at noon the day after that '
        "day or mid-month after that month (`reference_time`), `mp.search` defaults "
        f"(generated {datetime.now(UTC):%Y-%m-%d}):",
        ["asked", "recall@10"],
    )
    for way in ways:
        table.add(way, f"{recall[way] / len(asked):.3f}")
    for way in day_ways:
        table.add(f"{way} ({days} questions)", f"{recall[way] / days:.3f}")
    table.write(out)


if __name__ == "__main__":
    main()

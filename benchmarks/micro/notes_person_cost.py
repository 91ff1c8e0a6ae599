"""Microbenchmark: reading who a memory's notes are about (``note_subjects.notes_person``).

A search whose query names someone asks whose notes its candidates are; the answer
tags the notes' first words with jieba, and a note that opens with a clause of when or
where ("今天，…") is read again after it. 80 of MADial's dev notes, as written (Bart在…),
in the first person (我在…) and in the first person after a clause (今天，我在…); the
median of 5 reads with nothing cached (jieba's tags, the notes' opening clauses) and of
20 cached.

    .venv/bin/python benchmarks/micro/notes_person_cost.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/notes_person_cost.md``).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from report import Report, out_path
from timing import milliseconds

from memory_platform import textutil
from memory_platform.retrieval import note_subjects
from memory_platform.retrieval.note_subjects import notes_person

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "shared" / "data"
RESULTS = HERE.parent / "results" / "notes_person_cost.md"
INTRO = (
    "Reading whose notes 80 candidate notes are (`note_subjects.notes_person`;"
    " `benchmarks/micro/notes_person_cost.py`), median ms of 5 reads with jieba's tags"
    " uncached and of 20 cached:"
)
COLUMNS = ["notes", "uncached ms", "cached ms"]
TAGS = getattr(textutil, "tagged_words", None) or textutil._tagged_start  # type: ignore[attr-defined]
"""jieba's cached tags (``_tagged_start`` before 2026-11-26, so the script also measures
older code)."""
CACHES = [TAGS, *filter(None, [getattr(note_subjects, "_after_setting", None)])]
"""Everything a read of the notes caches: jieba's tags and, since 2026-11-26, what
follows a note's opening clause."""


def _clear_caches() -> None:
    for cache in CACHES:
        cache.cache_clear()


def _median_ms(notes: list[str], runs: int, uncached: bool) -> float:
    before = _clear_caches if uncached else lambda: None
    return statistics.median(milliseconds(lambda: notes_person(notes), runs, before))


def main() -> None:
    out = out_path(__doc__, RESULTS)
    data = json.loads((DATA / "madial_zh_dev.json").read_text(encoding="utf-8"))
    notes = [memory["event"] for memory in data["memories"][:80]]
    first_person = [note.replace("Bart", "我") for note in notes]
    report = Report(INTRO, COLUMNS)
    for label, kind in (
        ("as written (Bart在…)", notes),
        ("first person (我在…)", first_person),
        ("first person after a clause (今天，我在…)", ["今天，" + note for note in first_person]),
    ):
        uncached = _median_ms(kind, 5, uncached=True)
        cached = _median_ms(kind, 20, uncached=False)
        report.add(label, f"{uncached:.2f}", f"{cached:.3f}")
    report.write(out)


if __name__ == "__main__":
    main()

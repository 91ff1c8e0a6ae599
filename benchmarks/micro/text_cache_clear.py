"""Microbenchmark: what a search costs right after the process's text caches are emptied.

Forgetting (``forget``, ``delete_memory``, ``delete_episodes``, a purge, ``delete_user``)
empties every cache of tokenised text (``textutil.clear_text_caches``: jieba's words and
tags, the lexical tokens, the names found in notes, their sounds): the caches hold every
user's text as keys and cannot drop one user's. Another user's next search tokenises its
candidates again. MADial-Bench's dev user (Chinese, 83 memories and their dialogues) and
LoCoMo's first dev conversation (English) in a fresh SQLite file; each question searched
once to warm every cache (its vector included), then each question twice, alternating:
as it is (warm), and with the text caches emptied just before it (untimed). Median and
90th percentile in ms. Results: ``results/text_cache_clear.md``. ::

    .venv/bin/python benchmarks/micro/text_cache_clear.py [--out FILE]   # ~1 min
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from report import MADIAL_DEV, Report, out_path
from timing import median_p90, milliseconds

from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.calibrate import store_sets
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.retrieval_eval import EvalQuestion, EvalSet
from memory_platform.textutil import clear_text_caches

RESULTS = Path(__file__).resolve().parents[1] / "results" / "text_cache_clear.md"
INTRO = (
    "A search right after the process's text caches are emptied, as forgetting empties"
    " them (`textutil.clear_text_caches`; `benchmarks/micro/text_cache_clear.py`):"
    " each dev question searched once to warm every cache, then again as it is and"
    " again with the caches emptied just before it (untimed), alternating; `mp.search`"
    " with its defaults, access recording off."
)
COLUMNS = ["set", "questions", "warm ms (median / p90)", "after emptying ms (median / p90)"]


def measure(mp: MemoryPlatform, data: EvalSet) -> tuple[list[float], list[float]]:
    """Each question's search time warm and after the caches were emptied."""
    warm: list[float] = []
    cleared: list[float] = []
    for q in data.questions:

        def search(q: EvalQuestion = q) -> object:
            return mp.search(q.user_id, q.question, record_access=False)

        search()
        warm.extend(milliseconds(search, 1))
        cleared.extend(milliseconds(search, 1, clear_text_caches))
    return warm, cleared


def main() -> None:
    out = out_path(__doc__, RESULTS)
    sets = {
        "MADial-Bench zh dev": load_madial(MADIAL_DEV),
        "LoCoMo conversation 0": load_locomo(MADIAL_DEV.with_name("locomo_dev.json"), limit=1),
    }
    report = Report(INTRO, COLUMNS)
    with tempfile.TemporaryDirectory() as folder:
        mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
        store_sets(mp, list(sets.values()))
        for name, data in sets.items():
            warm, cleared = measure(mp, data)
            (wm, wp), (cm, cp) = median_p90(warm), median_p90(cleared)
            report.add(
                name, str(len(data.questions)), f"{wm:.1f} / {wp:.1f}", f"{cm:.1f} / {cp:.1f}"
            )
        mp.close()
    report.write(out)


if __name__ == "__main__":
    main()

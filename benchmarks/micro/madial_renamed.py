"""Microbenchmark: recall of MADial's dev user under another name: does it hold for a
person the names logic has never met?

The hidden measurement asks MADial's second user, a different person, and the dev user's
one name, Bart, is the only one retrieval was measured on in Chinese: his notes begin
with it (``Bart在…``), his dialogues are tagged with it (``<Bart>:``), and names weigh in
relevance (:mod:`memory_platform.retrieval.names`). Here Bart is renamed everywhere
(notes and dialogues) to names of either script that the file never says: English names
a Chinese note glues to the next character (``Emma在…``), Chinese names jieba knows or
makes of their characters (张伟, 丽莎), and given names alone that it tags as other words
(思雨 a noun, 婷婷 a state), which the names logic does not find
(:mod:`memory_platform.retrieval.chinese_names`). Each is measured as
``memory-platform eval madial`` measures the file as published. Nothing was tuned on it
(``renamed_speakers.py`` does the same for LoCoMo). ::

    .venv/bin/python benchmarks/micro/madial_renamed.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/madial_renamed.md``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import madial_rewrites

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "madial_renamed.md"
PERSON = "Bart"
"""The dev user's name, in every note and every dialogue's tags."""
NEW_NAMES = ("Emma", "Kevin", "张伟", "丽莎", "思雨", "婷婷")
"""Names the dev file never says (小明 and 小红 are his friends there)."""

INTRO = (
    "MADial's dev user renamed everywhere (notes and dialogues), each measured as"
    " `memory-platform eval madial` measures the file as published"
    " (`benchmarks/micro/madial_renamed.py`)."
)


def _renamed(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A MADial file in which :data:`PERSON` is called ``name`` wherever it says him."""

    def rewrite(madial: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(madial, ensure_ascii=False)
        if name in text:
            raise ValueError(f"{name} is already someone in the file")
        renamed: dict[str, Any] = json.loads(text.replace(PERSON, name))
        return renamed

    return rewrite


def main() -> None:
    rewrites: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        f"{PERSON} (as published)": lambda madial: madial
    }
    rewrites.update({name: _renamed(name) for name in NEW_NAMES})
    madial_rewrites(__doc__ or "", RESULTS, INTRO, "the user's name", rewrites)


if __name__ == "__main__":
    main()

"""Microbenchmark: MADial's dev user under another name, alone and beside the original:
does recall hold for a person the names logic has never met, and does the second user's
memory stay out of the first one's answers?

The hidden measurement asks MADial's second user, a different person, of their own memory
and of the first user's (off-topic), and the dev user's one name, Bart, is the only one
retrieval was measured on in Chinese: his notes begin with it (``Bart在…``), his dialogues
are tagged with it (``<Bart>:``), and names weigh in relevance
(:mod:`memory_platform.retrieval.names`). Here Bart is renamed everywhere (notes and
dialogues) to names of either script that the file never says: English names a Chinese
note glues to the next character (``Emma在…``), Chinese names jieba knows or makes of
their characters (张伟, 丽莎), and given names alone that it tags as other words (思雨 a
noun, 婷婷 a state), which the name finder of questions does not find
(:mod:`memory_platform.retrieval.chinese_names`). Each renamed copy is stored as a second
user beside Bart, as the benchmark's two users would be, and measured as
``memory-platform eval madial`` measures a file of two users: recall@10 of each, and the
off-topic figure (each dialogue asked of the other user: direct results per question).
The two hold the same events, more in common than two people have, so only their names
keep them apart. Nothing was tuned on it (``renamed_speakers.py`` does the same for
LoCoMo). ::

    .venv/bin/python benchmarks/micro/madial_renamed.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/madial_renamed.md``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from report import Report, madial_and_out, madial_recall

from memory_platform.bench.retrieval_eval import run_eval

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "madial_renamed.md"
PERSON = "Bart"
"""The dev user's name, in every note and every dialogue's tags."""
NEW_NAMES = ("Emma", "Kevin", "张伟", "丽莎", "思雨", "婷婷")
"""Names the dev file never says (小明 and 小红 are his friends there)."""

INTRO = (
    "MADial's dev user renamed everywhere (notes and dialogues): recall@10 stored alone,"
    " then stored as a second user beside the user as published and measured as"
    " `memory-platform eval madial` measures a file of two users: recall@10 of each, and"
    " off-topic, each dialogue asked of the other user (direct results per question)"
    " (`benchmarks/micro/madial_renamed.py`)."
)


def renamed(madial: dict[str, Any], name: str) -> dict[str, Any]:
    """The MADial file with :data:`PERSON` called ``name`` wherever it says him."""
    text = json.dumps(madial, ensure_ascii=False)
    if name in text:
        raise ValueError(f"{name} is already someone in the file")
    out: dict[str, Any] = json.loads(text.replace(PERSON, name))
    return out


def as_user(madial: dict[str, Any], user_id: int) -> dict[str, Any]:
    """The file's memories and dialogues, each marked as those of user ``user_id``."""
    return {
        key: [dict(item, **{"user-id": user_id}) for item in madial[key]]
        for key in ("memories", "dialogues")
    }


def side_by_side(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """``eval madial``'s figures for the two files stored as users 1 and 2 of one store."""
    one, two = as_user(first, 1), as_user(second, 2)
    both = {key: one[key] + two[key] for key in one}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "madial.json"
        data.write_text(json.dumps(both, ensure_ascii=False), encoding="utf-8")
        (figures,) = run_eval(None, data, Path(tmp))["sets"].values()
    out: dict[str, Any] = figures
    return out


def main() -> None:
    madial, out = madial_and_out(__doc__ or "", RESULTS)
    table = Report(
        INTRO,
        ["the user's name", "alone", f"beside {PERSON}: {PERSON}", "beside: theirs", "off-topic"],
    )
    table.add(f"{PERSON} (as published)", f"{madial_recall(madial):.3f}", "", "", "")
    for name in NEW_NAMES:
        other = renamed(madial, name)
        pair = side_by_side(madial, other)
        users = pair["per_user"]
        table.add(
            name,
            f"{madial_recall(other):.3f}",
            f"{users['madial-zh-1']['recall@10']:.3f}",
            f"{users['madial-zh-2']['recall@10']:.3f}",
            f"{pair['off_topic']['direct_per_query']:.2f}",
        )
    table.write(out)


if __name__ == "__main__":
    main()

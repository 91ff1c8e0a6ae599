"""Microbenchmark: recall of MADial's dev user when its notes are written another way
(``note_subjects``, ``people.MemoryPeople.about_the_owner``).

MADial-Bench writes each of its user's memories "Bart在…": the name first, then what he
did. Another user's memories, or an app's, may put a colon or a space after the name,
bracket it, write it in lower case or in full, prefix a role (用户Bart), close with the
year, or leave the name out altogether, as Chinese leaves out the writer. The dialogues
stay as published (``<Bart>:``). Each way is measured as ``memory-platform eval madial``
measures the dev set (recall@10, the platform's default search).

    .venv/bin/python benchmarks/micro/note_formats.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/note_formats.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import madial_rewrites

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "note_formats.md"


def _opening(written: Callable[[str], str]) -> Callable[[str], str]:
    """A note that opens with Bart's name written by ``written`` (the rest as it is)."""
    return lambda note: written(note[len("Bart") :]) if note.startswith("Bart") else note


FORMATS: dict[str, Callable[[str], str]] = {
    "Bart在… (as published)": lambda note: note,
    "Bart：在… (a colon after the name)": _opening(lambda rest: "Bart：" + rest),
    "Bart 在… (a space after the name)": lambda note: note.replace("Bart", "Bart "),
    "bart在… (lower case)": lambda note: note.replace("Bart", "bart"),
    "【Bart】在… (bracketed)": lambda note: note.replace("Bart", "【Bart】"),
    "Bart Simpson在… (a full name)": lambda note: note.replace("Bart", "Bart Simpson"),
    "用户Bart在… (a role before the name)": _opening(lambda rest: "用户Bart" + rest),
    "Bart在…（2023年） (the year at the end)": lambda note: note.rstrip("。") + "（2023年）。",
    "在… (the name left out)": lambda note: note.replace("Bart", ""),
}
"""How each way writes one of the dev user's notes as published."""

INTRO = (
    "MADial's dev notes written another way, the dialogues as published, each measured as"
    " `memory-platform eval madial` measures them (`benchmarks/micro/note_formats.py`)."
)


def _notes(written: Callable[[str], str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A MADial file with each of its notes written by ``written``."""
    return lambda madial: dict(
        madial, memories=[dict(m, event=written(m["event"])) for m in madial["memories"]]
    )


def main() -> None:
    rewrites = {label: _notes(written) for label, written in FORMATS.items()}
    madial_rewrites(__doc__ or "", RESULTS, INTRO, "notes", rewrites)


if __name__ == "__main__":
    main()

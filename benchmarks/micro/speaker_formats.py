"""Microbenchmark: recall of MADial's dev user when its dialogues write their speaker
tags another way (``textutil.plain_transcript``, ``names.speaker_names``).

MADial-Bench writes each line of a dialogue ``<Bart>:"…"``. A user may paste the same
conversation from another chat tool: tags in other brackets, without brackets, with a
full-width colon, in other case, numbered, with "said" (说), an @, the time or an aside,
the assistant under another name (助手, AI, a persona's 小爱), roles for both speakers
(用户/助手, Human/AI), or with no tags at all. Each format is measured as
``memory-platform eval madial`` measures the dialogues as published (recall@10, the
platform's default search).

    .venv/bin/python benchmarks/micro/speaker_formats.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/speaker_formats.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import madial_rewrites

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "speaker_formats.md"
_TAG = re.compile(r"^<([^>]+)>:")


def _retagged(form: str) -> Callable[[str], str]:
    """A line's ``<Bart>:`` tag written as ``form`` (``{}`` for the speaker)."""
    return lambda line: _TAG.sub(lambda m: form.format(m.group(1)), line)


FORMATS: dict[str, Callable[[str], str]] = {
    '<Bart>:"…" (as published)': lambda line: line,
    '[Bart]:"…"': _retagged("[{}]:"),
    '【Bart】："…"': _retagged("【{}】："),
    'Bart:"…" (no brackets)': _retagged("{}:"),
    'Bart："…" (a full-width colon)': _retagged("{}："),
    '<bart>:"…" (lower case)': lambda line: _TAG.sub(lambda m: f"<{m.group(1).lower()}>:", line),
    '<Bart1>:"…" (a number after the name)': lambda line: line.replace("<Bart>:", "<Bart1>:"),
    '＜Bart＞："…" (full-width brackets)': _retagged("＜{}＞："),
    'Bart说："…" (said)': _retagged("{}说："),
    '@Bart:"…"': _retagged("@{}:"),
    '[10:00] Bart:"…" (the time it was said)': _retagged("[10:00] {}:"),
    '<Bart（小朋友）>:"…" (an aside after the name)': lambda line: line.replace(
        "<Bart>:", "<Bart（小朋友）>:"
    ),
    "the assistant as <助手>": lambda line: line.replace("<Assistant>:", "<助手>:"),
    "the assistant as <AI>": lambda line: line.replace("<Assistant>:", "<AI>:"),
    "the assistant as <小爱> (a persona's name)": lambda line: line.replace(
        "<Assistant>:", "<小爱>:"
    ),
    "<User>: and <小美>: (a role, and an assistant with a name)": lambda line: line.replace(
        "<Bart>:", "<User>:"
    ).replace("<Assistant>:", "<小美>:"),
    "用户：and 助手：": lambda line: line.replace("<Bart>:", "用户：").replace(
        "<Assistant>:", "助手："
    ),
    "Human: and AI:": lambda line: line.replace("<Bart>:", "Human:").replace("<Assistant>:", "AI:"),
    '"…" (no tags at all)': _retagged(""),
}
"""How each format writes a line of the dialogues as published."""

INTRO = (
    "MADial's dev dialogues with their speaker tags written another way, each measured as"
    " `memory-platform eval madial` measures them (`benchmarks/micro/speaker_formats.py`)."
)


def _dialogues(written: Callable[[str], str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A MADial file with each line of its dialogues written by ``written``."""
    return lambda madial: dict(
        madial,
        dialogues=[
            dict(d, dialogue=list(map(written, d["dialogue"]))) for d in madial["dialogues"]
        ],
    )


def main() -> None:
    rewrites = {label: _dialogues(written) for label, written in FORMATS.items()}
    madial_rewrites(__doc__ or "", RESULTS, INTRO, "speaker tags", rewrites)


if __name__ == "__main__":
    main()

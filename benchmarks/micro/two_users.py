"""Off-topic between two Chinese users, made from MADial-Bench's one dev user.

The benchmark's second Chinese user is held out, so the "off-topic within the set" figure
of `memory-platform eval` (each user's dialogues asked of the other's memory) cannot be
measured on real data here. This builds benchmark folders of two users from the dev
user: the first is Bart as he is; the second is his whole memory and every dialogue with
his name replaced (:data:`SECOND_USERS`, one folder each):

- renamed Lisa, 乐乐, or 思雨 (a name jieba does not know);
- a friend of his renamed Bart, so that the second user's notes mention the first by name
  as a sibling's or a classmate's would; or that friend, Tom, whom Bart's notes mention;
- notes that open with their date (2023-12-25，Lisa在…) or their season (冬天Lisa在…),
  not her name; notes that say 她 (she) every other time;
- notes and dialogues that call her differently: her full name (李小红) and her given
  name (小红); his name (张伟) and his nickname (小伟); her name in Chinese characters
  (丽莎) and in Latin letters (Lisa); her name and a role (<User2>); her name in
  Chinese characters (小红) and in pinyin (Xiaohong).

Each folder goes through the same evaluation as `memory-platform eval madial --data FOLDER`.

    python benchmarks/micro/two_users.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/two_users.md``): off-topic within
the set (direct results per question) and recall@10 of each user.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from report import Report, madial_and_out

from memory_platform.bench.retrieval_eval import run_eval

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "two_users.md"


@dataclass(frozen=True)
class SecondUser:
    """How the second user is made from the dev user: the names replaced in his
    memories (``notes``) and in his dialogues (``said``, the same where not given), all
    at once (Bart becomes Lisa while Jimmy becomes Bart); ``opening`` opens each of the
    second user's notes, so that her name is not its first word (a format of the note's
    ``time`` and ``season``); with ``she``, every other note says 她 where her name was."""

    notes: dict[str, str]
    said: dict[str, str] | None = None
    opening: str = ""
    she: bool = False


SECOND_USERS: dict[str, SecondUser] = {
    "Bart renamed Lisa": SecondUser({"Bart": "Lisa"}),
    "Bart renamed 乐乐": SecondUser({"Bart": "乐乐"}),
    "Bart renamed 思雨 (a given name jieba's dictionary does not hold)": SecondUser(
        {"Bart": "思雨"}
    ),
    "Bart renamed Lisa, her friend Jimmy renamed Bart": SecondUser(
        {"Bart": "Lisa", "Jimmy": "Bart"}
    ),
    "Bart and his friend Tom swapped (each one's notes mention the other)": SecondUser(
        {"Bart": "Tom", "Tom": "Bart"}
    ),
    "Bart renamed Lisa, each of her notes opening with its date (2023-12-25，Lisa在…)": (
        SecondUser({"Bart": "Lisa"}, opening="{time}，")
    ),
    "Bart renamed 李小红 in the notes and 小红 in the dialogues": SecondUser(
        {"Bart": "李小红"}, said={"Bart": "小红"}
    ),
    "Bart renamed Lisa, every other note of hers saying 她 (Lisa在…, 她在…)": SecondUser(
        {"Bart": "Lisa"}, she=True
    ),
    "Bart renamed Lisa, each of her notes opening with its season (冬天Lisa在…)": SecondUser(
        {"Bart": "Lisa"}, opening="{season}"
    ),
    "Bart renamed 张伟 in the notes and 小伟 (his nickname) in the dialogues": SecondUser(
        {"Bart": "张伟"}, said={"Bart": "小伟"}
    ),
    "Bart renamed 丽莎 in the notes and Lisa in the dialogues (her name in two scripts)": (
        SecondUser({"Bart": "丽莎"}, said={"Bart": "Lisa"})
    ),
    "Bart renamed Lisa in the notes, her dialogues tagged <User2> (a role, not a name)": (
        SecondUser({"Bart": "Lisa"}, said={"Bart": "User2"})
    ),
    "Bart renamed 小红 in the notes and Xiaohong in the dialogues (her name in pinyin)": (
        SecondUser({"Bart": "小红"}, said={"Bart": "Xiaohong"})
    ),
    "Bart left out of the notes (在圣诞节晚会上跳舞…), the dialogues tagged <Lisa>": (
        SecondUser({"Bart": ""}, said={"Bart": "Lisa"})
    ),
}
SEASONS = (
    "冬天",
    "冬天",
    "春天",
    "春天",
    "春天",
    "夏天",
    "夏天",
    "夏天",
    "秋天",
    "秋天",
    "秋天",
    "冬天",
)
"""The season of each month."""

INTRO = (
    "Two users made from MADial-Bench's dev user (`benchmarks/micro/two_users.py`): each"
    " user's dialogues asked of the other's memory (direct results per question, 95%"
    " interval), and recall@10 of each user on their own memory."
)
"""The report's opening paragraph."""
COLUMNS = ["second user", "off-topic within the set", "recall@10, user 1 / user 2"]


def renamed(text: str, names: dict[str, str]) -> str:
    """``text`` with every name of ``names`` replaced at once."""
    marks = {old: f"\0{i}\0" for i, old in enumerate(names)}
    for old, mark in marks.items():
        text = text.replace(old, mark)
    for old, mark in marks.items():
        text = text.replace(mark, names[old])
    return text


def _second_note(memory: dict[str, Any], second: SecondUser, *, she: bool) -> str:
    """The second user's note made from one of the dev user's: renamed, opened by
    ``second.opening``, saying 她 for the first name of the dev user's where ``she``."""
    event = memory["event"].replace("Bart", "她", 1) if she else memory["event"]
    season = SEASONS[int(str(memory["time"])[5:7]) - 1]
    opening = second.opening.format(time=memory["time"], season=season)
    return opening + renamed(event, second.notes)


def two_user_folder(dev: dict[str, Any], second: SecondUser, folder: Path) -> Path:
    """A ``data/ch`` folder as the benchmark publishes it: the dev user as user 1 and
    the copy made by ``second`` as user 2 (dialogue ids moved past the first user's)."""
    memories = [dict(m, **{"user-id": 1}) for m in dev["memories"]]
    dialogues = [dict(d, **{"user-id": 1}) for d in dev["dialogues"]]
    offset = 1 + max(int(d["id"]) for d in dev["dialogues"])
    memories += [
        dict(m, event=_second_note(m, second, she=second.she and i % 2 == 0), **{"user-id": 2})
        for i, m in enumerate(dev["memories"])
    ]
    said = second.notes if second.said is None else second.said
    dialogues += [
        dict(
            d,
            id=int(d["id"]) + offset,
            dialogue=[renamed(turn, said) for turn in d["dialogue"]],
            **{"user-id": 2},
        )
        for d in dev["dialogues"]
    ]
    ch = folder / "data" / "ch"
    ch.mkdir(parents=True)
    for name, items in (("memory", memories), ("dialogue", dialogues)):
        path = ch / f"MADial-Bench-zh-{name}.json"
        path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return ch


def main() -> None:
    dev, out = madial_and_out(__doc__ or "", RESULTS)
    table = Report(INTRO, COLUMNS)
    for label, second in SECOND_USERS.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = two_user_folder(dev, second, Path(tmp))
            report = run_eval(None, folder, Path(tmp))
        figures = report["sets"]["madial_zh_dev"]
        off = figures["off_topic"]
        low, high = off["95% CI"]
        recalls = " / ".join(f"{user['recall@10']:.3f}" for user in figures["per_user"].values())
        table.add(label, f"{off['direct_per_query']:.2f} ({low:.2f}-{high:.2f})", recalls)
    table.write(out)


if __name__ == "__main__":
    main()

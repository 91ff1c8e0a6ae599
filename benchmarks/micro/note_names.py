"""Microbenchmark: which names written into MADial's dev notes are found as the notes'
person (``note_subjects.notes_person``), and which opening words are rightly found as no
one's.

Each name replaces Bart in every one of the dev user's 83 notes (as a second user of the
benchmark would be written); the notes' person must come back as that name. Words that
are not names (a place, a relative, a time, the owner) written the same way must give
none. The lists are written here: children's names, full names, foreign names in Chinese
characters.

    .venv/bin/python benchmarks/micro/note_names.py [--madial FILE] [--out FILE]

Writes a Markdown table (default ``benchmarks/results/note_names.md``).
"""

from __future__ import annotations

from pathlib import Path

from report import Report, madial_and_out

from memory_platform.retrieval.note_subjects import notes_person

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "note_names.md"

NAMES = """
露西 凯文 明明 甜甜 天天 可可 贝贝 果果 朵朵 安安 平平 星星 月月 阳阳 多多 冬冬 小雨 雨桐
子涵 一诺 欣怡 梓萱 浩然 思雨 宇轩 子轩 诗涵 佳怡 俊杰 小宝 大宝 二宝 丁丁 豆豆 毛毛 牛牛
糖糖 芳芳 强强 东东 红红 花花 乐乐 笑笑 晨晨 航航 涛涛 萌萌 欢欢 园园 球球 王小二 李雷
韩梅梅 张三 李四 小王 老李 王老师 李阿姨 丽莎 莉莎 艾米 琳达 汤姆 杰克 玛丽 安娜 莉莉
梓涵 若汐 雨涵 梦琪 浩宇 紫涵 欣妍 语桐 沐宸 子墨 奕辰 诗琪 梓轩 晓雯 嘉怡 雅琪 静怡
""".split()
"""Names a user's notes may begin with."""

NO_ONE = (
    "学校 公园 北京 西安 今天 周末 上午 每天 天天 妈妈 老师 我 用户 "
    "狗狗 猫咪 小猫 宝宝 老公 闺女 闺蜜 男票 公司 小区 网课 疫情"
).split()
"""Words that begin notes about no named person."""

INTRO = (
    "Names written into the 83 notes of MADial's dev user in Bart's place, and whether"
    " `note_subjects.notes_person` finds each as the notes' person; words that name no one"
    " written the same way (`benchmarks/micro/note_names.py`):"
)
COLUMNS = ["written", "count", "as expected", "not as expected (found)"]


def main() -> None:
    dev, out = madial_and_out(__doc__ or "", RESULTS)
    notes = [memory["event"] for memory in dev["memories"]]

    def person(word: str) -> str | None:
        return notes_person([note.replace("Bart", word) for note in notes])

    table = Report(INTRO, COLUMNS)
    found = {name: person(name) for name in NAMES}
    table.add_tally(
        "names",
        len(NAMES),
        [f"{name} ({got or 'none'})" for name, got in found.items() if got != name],
    )
    named = {word: person(word) for word in NO_ONE}
    table.add_tally(
        "words that name no one",
        len(NO_ONE),
        [f"{word} ({got})" for word, got in named.items() if got is not None],
    )
    table.write(out)


if __name__ == "__main__":
    main()

"""Write ``memory_platform/retrieval/pinyin.txt``: the toneless pinyin readings of the 8,105
characters of China's standard list of characters in common use (通用规范汉字表, 2013),
the characters a name given in China may be written with.

The readings come from the Unicode Han Database (Unihan), as Debian's ``unicode-data``
package ships it: every reading its ``kTGHZ2013`` field gives (the dictionary of that
list, 通用规范汉字字典) and its ``kMandarin`` field (the customary one), tones dropped.
The table is committed; this script is how it was made and how to make it again::

    apt-get download unicode-data && dpkg-deb -x unicode-data_*_all.deb unicode-data
    python scripts/pinyin_table.py unicode-data/usr/share/unicode/Unihan_Readings.txt.bz2
"""

from __future__ import annotations

import argparse
import bz2
import unicodedata
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "memory_platform" / "retrieval" / "pinyin.txt"
HEADER = """\
# Toneless pinyin of the 8,105 characters of 通用规范汉字表 (2013), one syllable per line
# with the characters read so (ü written v). Made by scripts/pinyin_table.py from the
# Unicode Han Database 15.0 (Unihan_Readings.txt: kTGHZ2013 and kMandarin), as Debian's
# unicode-data package ships it. Unicode data: Copyright (c) 1991-2022 Unicode, Inc.,
# under the Unicode License (https://www.unicode.org/license.txt).
"""


def toneless(reading: str) -> str:
    """``lǜ`` → ``lv``, ``hóng`` → ``hong``."""
    bare = unicodedata.normalize("NFD", reading).replace("u\u0308", "v")  # ü, with any tone
    return "".join(ch for ch in bare if not unicodedata.combining(ch)).casefold()


def readings(path: Path) -> dict[str, set[str]]:
    """Each listed character's toneless readings."""
    standard: dict[str, set[str]] = defaultdict(set)
    customary: dict[str, set[str]] = defaultdict(set)
    opener = bz2.open if path.suffix == ".bz2" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            code, field, value = line.rstrip("\n").split("\t")
            character = chr(int(code[2:], 16))
            if field == "kTGHZ2013":  # "137.130:hóng 461.030:zēng": page.position:reading
                standard[character] |= {toneless(v.split(":")[1]) for v in value.split()}
            elif field == "kMandarin":
                customary[character] |= {toneless(v) for v in value.split()}
    return {ch: said | customary[ch] for ch, said in standard.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("unihan_readings", type=Path, help="Unihan_Readings.txt(.bz2)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    by_syllable: dict[str, set[str]] = defaultdict(set)
    for character, said in readings(args.unihan_readings).items():
        for syllable in said:
            by_syllable[syllable].add(character)
    rows = [f"{s} {''.join(sorted(chars))}" for s, chars in sorted(by_syllable.items())]
    args.out.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(rows)} syllables")


if __name__ == "__main__":
    main()

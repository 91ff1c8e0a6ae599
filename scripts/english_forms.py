"""Write ``memory_platform/retrieval/english_forms.txt.gz``: the English words that can
open a note with no subject ("Likes jazz", "Works as a nurse", "Allergic to peanuts"),
by what they can be:

- ``v``: an inflected form of a verb (likes, went, adopted, swimming): the verb of a
  sentence whose subject was left out, where it comes first;
- ``x``: an auxiliary (can, will, does, has, is), which opens such a sentence before
  another verb too ("Has been to Paris");
- ``a``: an adjective (allergic, afraid), which opens such a note before a preposition;
- ``r``: an adverb (never, recently), which may come before either.

The words and their parts of speech come from the lookup table of ``lemminflect`` 0.2.3
(MIT; its data from the Automatically Generated Inflection Database and the English
Web Treebank), lower-case words only, proper nouns left out. The table is committed;
this script is how it was made and how to make it again::

    pip download --no-deps lemminflect==0.2.3 && unzip lemminflect-0.2.3-py3-none-any.whl
    python scripts/english_forms.py lemminflect/resources/lemma_lu.csv.gz
"""

from __future__ import annotations

import argparse
import gzip
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "memory_platform" / "retrieval"
OUT = OUT / "english_forms.txt.gz"
HEADER = """\
# English words by what they can be at the start of a note with no subject: v (an
# inflected verb), x (an auxiliary), a (an adjective), r (an adverb). Made by
# scripts/english_forms.py from the lookup table of lemminflect 0.2.3 (MIT License,
# Copyright (c) 2019 Brad Jascob).
"""


def kinds(path: Path) -> dict[str, set[str]]:
    """Each lower-case word's kinds, from lines of ``word,upos,lemma/lemma``."""
    found: dict[str, set[str]] = defaultdict(set)
    with gzip.open(path, "rt", encoding="utf-8") as table:
        for line in table:
            word, upos, lemmas = line.rstrip("\n").split(",", 2)
            if not word.isalpha() or not word.islower():
                continue
            if upos == "aux":
                found[word].add("x")
            elif upos == "verb" and word not in lemmas.split("/"):
                found[word].add("v")
            elif upos == "adj":
                found[word].add("a")
            elif upos == "adv":
                found[word].add("r")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=Path, help="lemminflect's resources/lemma_lu.csv.gz")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    lines = [f"{word} {''.join(sorted(k))}" for word, k in sorted(kinds(args.table).items())]
    with gzip.GzipFile(args.out, "wb", mtime=0) as out:  # the same bytes run after run
        out.write((HEADER + "\n".join(lines) + "\n").encode("utf-8"))
    print(f"{args.out}: {len(lines)} words")


if __name__ == "__main__":
    main()

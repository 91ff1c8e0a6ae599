"""Names the dictionary takes for places, said in a question about the owner as a person's.

In a question about the memory's owner, a name the memory never held is evidence against
every match when it is a person's (a stranger), and a word like any other when it is a
place's ("What did I eat in Chengdu?"). Which it is comes from CC-CEDICT and jieba
(``gloss.names_no_person``), unless the question's wording says (``names.
said_as_place_or_thing``, ``names.said_as_person``). Many people bear the name of a
place (Florence, Georgia, Chelsea), and jieba tags some given names places (挪亚, Noah).

This check asks forty-four such names of a memory that records its owner's name and holds
a spicy hotpot and a morning run, none of them: "What spicy food did I eat with X?" and
"What spicy food did my friend X cook?" (a person: nothing should be found) and "What
spicy food did I eat in X?" (a place: the hotpot should be). ::

    .venv/bin/python benchmarks/micro/place_names_as_people.py

Writes ``benchmarks/results/place_names_as_people.md``. Nothing was tuned on it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.retrieval.gloss import names_no_person

NAMES = (
    "Noah Philip Heidi Moses Virginia Florence Georgia Brooklyn Chelsea Paris Austin "
    "Sydney Savannah Dakota Phoenix Madison Charlotte Kent Jordan India Asia Israel Dallas "
    "Victoria Adelaide Alexandria Aurora Carolina Eden Geneva Lourdes Orlando Raleigh "
    "Sienna Tyler Lincoln Houston Denver Cairo Milan Regina Elizabeth Jackson Chester"
).split()
"""Given names that are also places, and given names jieba tags places."""

TOLD = ("Last month I ate a very spicy hotpot.", "I run five kilometres every morning.")
ASKED = {
    "with": ("What spicy food did I eat with {}?", False),
    "my friend": ("What spicy food did my friend {} cook?", False),
    "in": ("What spicy food did I eat in {}?", True),
}
"""Each wording, and whether the hotpot should be found (a place) or not (a person)."""

OUT = Path(__file__).resolve().parents[1] / "results" / "place_names_as_people.md"


def main() -> None:
    place_like = [name for name in NAMES if names_no_person(name)]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(backend="sqlite", sqlite_path=Path(folder) / "m.db")
        with MemoryPlatform(settings) as mp:
            mp.create_memory("en", "user", "fact", "name", "Alice")
            for i, text in enumerate(TOLD):
                mp.add_messages("en", f"s{i}", [{"role": "user", "content": text}])
            mp.wait_for_indexing()
            for label, (template, wanted) in ASKED.items():
                found = [
                    name
                    for name in place_like
                    if any(
                        r.layer == "direct" and r.text == TOLD[0]
                        for r in mp.search("en", template.format(name), record_access=False)
                    )
                ]
                right = len(found) if wanted else len(place_like) - len(found)
                wrong = [] if wanted else found
                rows.append((label, template.format("X"), wanted, len(found), right, wrong))
    lines = [
        "Names the dictionary takes for no person, asked about in a question about the owner "
        "(`benchmarks/micro/place_names_as_people.py`): "
        f"{len(place_like)} of {len(NAMES)} names read as no person "
        f"({', '.join(place_like)}).",
        "",
        "| wording | question | the hotpot should be | found it | right | found, though a person |",
        "|---|---|---|---|---|---|",
    ]
    for label, question, wanted, hits, right, wrong in rows:
        lines.append(
            f"| {label} | {question} | {'found' if wanted else 'not found'} | {hits} | "
            f"{right} of {len(place_like)} | {', '.join(wrong) or '-'} |"
        )
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

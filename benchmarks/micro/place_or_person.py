"""Whether a name in a question about the owner is a place's or a person's.

In a question about the memory's owner, a name the memory never held is evidence against
every match when it is a person's (a stranger), and a word like any other when it is a
place's or a thing's ("What did I eat in Chengdu?"). Which it is comes from CC-CEDICT and
jieba (``gloss.names_no_person``), unless the question's wording says
(``names.said_as_place_or_thing``, ``names.said_as_person``). The two go wrong in
opposite ways:

- many people bear a place's name (Florence, Georgia), and jieba tags some given names
  places (挪亚, Noah): asked "What spicy food did I eat with X?" or "What spicy food did
  my friend X cook?", such a name must find nothing in a memory without X, and "…in X?"
  must find the hotpot;
- CC-CEDICT gives many places and brands as no more than a name (Dallas, Harvard,
  Walmart): asked "What lamp did I buy at X?" or "…order from X?", the lamp must be
  found.

Each list is asked of a memory that records its owner's name and holds a spicy hotpot, a
lamp bought and a morning run, none naming anyone or anywhere. ::

    .venv/bin/python benchmarks/micro/place_or_person.py

Writes ``benchmarks/results/place_or_person.md``. Nothing was tuned on it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.retrieval.gloss import names_no_person

PEOPLE_WITH_PLACE_NAMES = (
    "Noah Philip Heidi Moses Virginia Florence Georgia Brooklyn Chelsea Paris Austin "
    "Sydney Savannah Dakota Phoenix Madison Charlotte Kent Jordan India Asia Israel Dallas "
    "Victoria Adelaide Alexandria Aurora Carolina Eden Geneva Lourdes Orlando Raleigh "
    "Sienna Tyler Lincoln Houston Denver Cairo Milan Regina Elizabeth Jackson Chester"
).split()
"""Given names that are also places, and given names jieba tags places: those the
dictionary reads as no person are asked about as people."""

PLACES_AND_BRANDS = (
    "Dallas Dell Harvard Iraq Stanford Yale Oxford Cambridge Princeton Costco Walmart "
    "Target Starbucks Google Microsoft Apple Amazon IKEA Disneyland Tesco Seattle Boston "
    "Chicago Toronto Vancouver Berkeley Columbia MIT Hilton Marriott Macy Nordstrom Kroger "
    "Safeway McDonald KFC Subway Nike Adidas Samsung Sony Toyota Honda Walgreens Pixar "
    "Netflix Yosemite Vegas Miami Atlanta Portland Detroit Memphis Nashville"
).split()
"""Places and brands: those the dictionary gives as a name and nothing more (a possible
person) are asked about as places."""

HOTPOT = "Last month I ate a very spicy hotpot."
LAMP = "Last week I bought a new lamp."
TOLD = (HOTPOT, LAMP, "I run five kilometres every morning.")

AS_PEOPLE = {
    "with": ("What spicy food did I eat with {}?", HOTPOT, False),
    "my friend": ("What spicy food did my friend {} cook?", HOTPOT, False),
    "in": ("What spicy food did I eat in {}?", HOTPOT, True),
}
AS_PLACES = {
    "at": ("What lamp did I buy at {}?", LAMP, True),
    "in": ("What lamp did I buy in {}?", LAMP, True),
    "order from": ("What lamp did I order from {}?", LAMP, True),
    "with": ("What lamp did I buy with {}?", LAMP, False),
}
"""Each wording: its question, the memory it is about, and whether that memory should be
found (the name a place's) or not (a person's)."""

OUT = Path(__file__).resolve().parents[1] / "results" / "place_or_person.md"


def _rows(
    mp: MemoryPlatform, names: list[str], asked: dict[str, tuple[str, str, bool]]
) -> list[str]:
    rows = []
    for label, (template, memory, wanted) in asked.items():
        found = [
            name
            for name in names
            if any(
                r.layer == "direct" and r.text == memory
                for r in mp.search("en", template.format(name), record_access=False)
            )
        ]
        right = len(found) if wanted else len(names) - len(found)
        wrong = ", ".join(found) if not wanted else ", ".join(n for n in names if n not in found)
        rows.append(
            f"| {label} | {template.format('X')} | {'found' if wanted else 'not found'} | "
            f"{len(found)} | {right} of {len(names)} | {wrong or '-'} |"
        )
    return rows


def main() -> None:
    people = [name for name in PEOPLE_WITH_PLACE_NAMES if names_no_person(name)]
    places = [name for name in PLACES_AND_BRANDS if not names_no_person(name)]
    header = [
        "| wording | question | the memory should be | found it | right | wrong |",
        "|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(backend="sqlite", sqlite_path=Path(folder) / "m.db")
        with MemoryPlatform(settings) as mp:
            mp.create_memory("en", "user", "fact", "name", "Alice")
            for i, text in enumerate(TOLD):
                mp.add_messages("en", f"s{i}", [{"role": "user", "content": text}])
            mp.wait_for_indexing()
            lines = [
                "Whether a name in a question about the owner is a place's or a person's "
                "(`benchmarks/micro/place_or_person.py`), asked of a memory that holds none "
                "of the names.",
                "",
                f"Names of people that the dictionary reads as no person: {len(people)} of "
                f"{len(PEOPLE_WITH_PLACE_NAMES)} given names that are also places or that "
                f"jieba tags places ({', '.join(people)}).",
                "",
                *header,
                *_rows(mp, people, AS_PEOPLE),
                "",
                f"Places and brands that the dictionary gives as a name and nothing more: "
                f"{len(places)} of {len(PLACES_AND_BRANDS)} ({', '.join(places)}).",
                "",
                *header,
                *_rows(mp, places, AS_PLACES),
            ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

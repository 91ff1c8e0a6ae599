"""LoCoMo dev with every speaker renamed: does recall hold for people the names logic has
never met?

Retrieval reads names (a question naming a turn's speaker favours that turn; a name the
memory never held is evidence against a match; off-topic rests on it), and the dev
conversations' ten names are the only ones it was measured on. Here each conversation's
two speakers, and the short forms their friends use, are renamed everywhere (turns,
speakers, captions, questions, gold answers), whole words and their possessive typos
("Johns's"), twice: to names of other origins, and to common English names that are also
words, brands or short forms (Chase, Sam, Calvin, Deb). ``memory-platform eval locomo``'s
protocol runs on the original file and both renamed ones in the same process. Nothing was
tuned on it. ::

    .venv/bin/python benchmarks/micro/renamed_speakers.py  # about 35 minutes

Writes a Markdown table (default ``benchmarks/results/renamed_speakers.md``).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from report import Report, out_path

from memory_platform.bench.retrieval_eval import run_eval

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "renamed_speakers.md"
LOCOMO_DEV = HERE.parents[2] / "shared" / "data" / "locomo_dev.json"
RENAME_SETS = {
    "other origins": {
        "conv-26": {"Caroline": "Priya", "Melanie": "Olga", "Mel": "Ol"},
        "conv-30": {"Jon": "Kenji", "Gina": "Fatima"},
        "conv-41": {"John": "Mateo", "Maria": "Ingrid"},
        "conv-42": {"Joanna": "Aisha", "Nate": "Lars", "Jo": "Ai"},
        "conv-43": {"Tim": "Raj", "John": "Hugo"},
    },
    "also words or brands": {
        "conv-26": {"Caroline": "Jolene", "Melanie": "Deborah", "Mel": "Deb"},
        "conv-30": {"Jon": "Calvin", "Gina": "Dave"},
        "conv-41": {"John": "Sam", "Maria": "Evan"},
        "conv-42": {"Joanna": "Audrey", "Nate": "Andrew", "Jo": "Aud"},
        "conv-43": {"Tim": "James", "John": "Chase"},
    },
}
"""Each set: each conversation's speakers (and the short forms said in it) to new names."""


def renamed(conversation: dict[str, Any], renames: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The conversation with its people renamed, as whole words (and a name's possessive
    typo, "Johns's"), wherever a string says them."""
    names = renames[conversation["sample_id"]]
    alternatives = "|".join(sorted(names, key=len, reverse=True))
    pattern = re.compile(r"\b(" + alternatives + r")(?=\b|s's\b)")

    def rename(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(lambda m: names[m.group(1)], value)
        if isinstance(value, list):
            return [rename(v) for v in value]
        if isinstance(value, dict):
            return {k: rename(v) for k, v in value.items()}
        return value

    out: dict[str, Any] = rename(conversation)
    out["sample_id"] = conversation["sample_id"]
    return out


def recall(conversations: list[dict[str, Any]], workdir: Path) -> dict[str, Any]:
    """``eval locomo``'s figures for these conversations, in a store of their own."""
    data = workdir / "locomo.json"
    data.write_text(json.dumps(conversations), encoding="utf-8")
    report = run_eval(data, None, workdir)
    figures: dict[str, Any] = next(iter(report["sets"].values()))
    return figures


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    conversations = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))
    table = Report(
        "LoCoMo dev's questions of categories 1-4, recall@10 through `mp.search`, each "
        "conversation's speakers renamed everywhere against the original names, same run "
        "(`benchmarks/micro/renamed_speakers.py`), in two sets: names of other origins, then "
        "common English names that are also words, brands or short forms; off-topic is "
        "direct results per question asked of the next conversation's user.",
        ["conversation", "renamed to", "original", "renamed"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        original = recall(conversations, Path(tmp))
    for label, renames in RENAME_SETS.items():
        with tempfile.TemporaryDirectory() as tmp:
            result = recall([renamed(c, renames) for c in conversations], Path(tmp))
        for conversation in conversations:
            user = f"locomo-{conversation['sample_id']}"
            people = renames[conversation["sample_id"]].items()
            table.add(
                conversation["sample_id"],
                ", ".join(f"{a} → {b}" for a, b in people),
                f"{original['per_user'][user]['recall@10']:.3f}",
                f"{result['per_user'][user]['recall@10']:.3f}",
            )
        table.add(
            f"all (1-4), {label}",
            "",
            f"{original['methods']['platform']['all']['recall@10']:.3f}",
            f"{result['methods']['platform']['all']['recall@10']:.3f}",
        )
        table.add(
            f"off-topic, {label}",
            "",
            f"{original['off_topic']['direct_per_query']:.2f}",
            f"{result['off_topic']['direct_per_query']:.2f}",
        )
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()

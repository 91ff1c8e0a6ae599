"""LoCoMo dev with every speaker renamed: does recall hold for people the names logic has
never met?

Retrieval reads names (a question naming a turn's speaker favours that turn; a name the
memory never held is evidence against a match; off-topic rests on it), and the dev
conversations' ten names are the only ones it was measured on. Here each conversation's
two speakers, and the short forms their friends use, are renamed everywhere (turns,
speakers, captions, questions, gold answers) to names of other origins, whole words
only, and ``memory-platform eval locomo``'s protocol runs on the renamed and the original
file in the same process. Nothing was tuned on it. ::

    .venv/bin/python benchmarks/micro/renamed_speakers.py  # about 12 minutes

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
RENAMES = {
    "conv-26": {"Caroline": "Priya", "Melanie": "Olga", "Mel": "Ol"},
    "conv-30": {"Jon": "Kenji", "Gina": "Fatima"},
    "conv-41": {"John": "Mateo", "Maria": "Ingrid"},
    "conv-42": {"Joanna": "Aisha", "Nate": "Lars", "Jo": "Ai"},
    "conv-43": {"Tim": "Raj", "John": "Hugo"},
}
"""Each conversation's speakers (and the short forms said in it) to their new names."""


def renamed(conversation: dict[str, Any]) -> dict[str, Any]:
    """The conversation with its people renamed, as whole words, wherever a string says
    them."""
    names = RENAMES[conversation["sample_id"]]
    pattern = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")

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
        "(`benchmarks/micro/renamed_speakers.py`); off-topic is direct results per question "
        "asked of the next conversation's user.",
        ["conversation", "renamed to", "original", "renamed"],
    )
    results = {}
    for label, data in (
        ("original", conversations),
        ("renamed", [renamed(c) for c in conversations]),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            results[label] = recall(data, Path(tmp))
    for conversation in conversations:
        user = f"locomo-{conversation['sample_id']}"
        people = ", ".join(f"{a} → {b}" for a, b in RENAMES[conversation["sample_id"]].items())
        table.add(
            conversation["sample_id"],
            people,
            f"{results['original']['per_user'][user]['recall@10']:.3f}",
            f"{results['renamed']['per_user'][user]['recall@10']:.3f}",
        )
    table.add(
        "all (1-4)",
        "",
        f"{results['original']['methods']['platform']['all']['recall@10']:.3f}",
        f"{results['renamed']['methods']['platform']['all']['recall@10']:.3f}",
    )
    table.add(
        "off-topic",
        "",
        f"{results['original']['off_topic']['direct_per_query']:.2f}",
        f"{results['renamed']['off_topic']['direct_per_query']:.2f}",
    )
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()

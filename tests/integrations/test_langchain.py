"""The LangChain adapter through langchain-core's own interfaces, on the embedded store."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from examples.langchain_agent import NOW, ScriptedChatModel, call, run_agent, scripted_model
from memory_platform import MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.integrations.langchain import (
    MemoryChatMessageHistory,
    MemoryRetriever,
    memory_tools,
)
from tests.support.jobs import wait_for
from tests.support.openai_stub import OpenAIStub
from tests.unit.test_extraction import GOOD

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(sqlite_path=tmp_path / "lc.db", llm_base_url=stub.base_url, _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as platform:
        yield platform


def test_bound_tools_carry_the_designs_schemas(mp: MemoryPlatform) -> None:
    for lang in ("en", "zh"):
        tools = memory_tools(mp, "alice", lang=lang)
        model = ScriptedChatModel(messages=iter([])).bind_tools(tools)
        assert [convert_to_openai_tool(t) for t in model.bound_tools] == mp.tool_definitions(lang)


def test_a_tool_calling_loop_writes_links_and_recalls_memory(mp: MemoryPlatform) -> None:
    tools = memory_tools(mp, "alice", reference_time=NOW)
    model = scripted_model().bind_tools(tools)
    messages = [HumanMessage("I slept badly last night and I'm in a low mood today.")]

    assert run_agent(model, tools, messages).content == "Noted. Sorry you slept badly."
    messages.append(HumanMessage("Why am I in a low mood?"))
    answer = run_agent(model, tools, messages)

    assert "slept badly" in str(answer.content)
    results = [json.loads(str(m.content)) for m in messages if isinstance(m, ToolMessage)]
    assert [r["success"] for r in results] == [True, True, True, True]
    assert results[2]["relation"] == "CAUSES"
    search = results[3]
    assert [r["layer"] for r in search["results"]] == ["direct", "related"]
    assert search["results"][0]["text"].startswith("I mood low")
    assert mp.stats("alice").memories == 2 and mp.stats("alice").links == 1
    assert mp.stats("bob").memories == 0


def test_bad_tool_arguments_come_back_as_an_error_the_model_can_fix(mp: MemoryPlatform) -> None:
    tools = {t.name: t for t in memory_tools(mp, "alice")}
    bad = call("create_memory", "c9", subject="I", memory_type="diary", topic="sleep")

    reply = tools["create_memory"].invoke(bad)

    assert isinstance(reply, ToolMessage) and reply.tool_call_id == "c9"
    assert reply.status == "error"  # routed as a failure, not raised
    result = json.loads(str(reply.content))
    assert result["success"] is False and "memory_type" in result["error"]
    assert "event" in result["error"]  # the allowed values are listed
    assert mp.stats("alice").memories == 0


def test_extended_tools_let_an_agent_correct_and_forget(mp: MemoryPlatform) -> None:
    tools = {t.name: t for t in memory_tools(mp, "alice", reference_time=NOW, extended=True)}
    assert list(tools) == [
        "create_memory", "link_memories", "search_memories", "update_memory", "forget_memory",
    ]  # fmt: skip
    model = ScriptedChatModel(messages=iter([])).bind_tools(list(tools.values()))
    assert [convert_to_openai_tool(t) for t in model.bound_tools] == mp.tool_definitions(
        "en", extended=True
    )
    created = tools["create_memory"].invoke(
        call("create_memory", "c1", subject="I", memory_type="event", topic="moved to",
             object="Berlin")
    )  # fmt: skip
    old = json.loads(str(created.content))["memory_id"]
    fixed = tools["update_memory"].invoke(
        call("update_memory", "c2", memory_description="I moved to Berlin", object="Paris",
             reason="the user corrected the city")
    )  # fmt: skip
    result = json.loads(str(fixed.content))
    assert fixed.status == "success" and result["supersedes"] == old
    assert [v.memory.text for v in mp.memory_history("alice", old)] == [
        "I moved to Berlin",
        "I moved to Paris",
    ]
    vague = tools["forget_memory"].invoke(
        call("forget_memory", "c3", memory_description="something I never said")
    )
    assert vague.status == "error" and mp.stats("alice").memories == 2
    gone = tools["forget_memory"].invoke(call("forget_memory", "c4", memory_description=old))
    assert gone.status == "success" and mp.stats("alice").memories == 0


def test_the_retriever_returns_documents_with_score_components(mp: MemoryPlatform) -> None:
    tools = memory_tools(mp, "alice", reference_time=NOW)
    run_agent(scripted_model(), tools, [HumanMessage("...")])
    mp.wait_for_indexing("alice")
    retriever = MemoryRetriever(platform=mp, user_id="alice", search_kwargs={"expand_depth": 1})

    docs = retriever.invoke("why is my mood low?")
    batched = retriever.batch(["mood", "sleep"])

    assert all(isinstance(d, Document) for d in docs)
    assert [d.metadata["layer"] for d in docs] == ["direct", "related"]
    assert docs[1].metadata["relation"] == "cause"
    assert docs[1].metadata["graph_distance"] == 1
    assert set(docs[0].metadata["components"]) >= {"semantic", "importance", "graph"}
    assert docs[0].metadata["score"] > docs[1].metadata["score"]
    assert docs[0].id == docs[0].metadata["id"]
    assert [len(b) > 0 for b in batched] == [True, True]
    assert 0.2 <= docs[0].metadata["relevance"] <= 1.0
    strict = MemoryRetriever(platform=mp, user_id="alice", search_kwargs={"min_relevance": 1.0})
    assert strict.invoke("why is my mood low?") == []
    other = MemoryRetriever(platform=mp, user_id="bob")
    assert other.invoke("why is my mood low?") == []


def test_chat_history_records_the_session_and_ends_it_in_extraction(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    history = MemoryChatMessageHistory(mp, "alice", "s1")
    model = ScriptedChatModel(messages=iter([AIMessage("好的,记下了")]))

    history.add_user_message("我下周要去成都出差,顺便想吃火锅")
    reply = model.invoke(history.messages)
    history.add_message(reply)

    assert reply.content == "好的,记下了"
    recorded = MemoryChatMessageHistory(mp, "alice", "s1").messages  # read back from the store
    assert [(m.type, m.content) for m in recorded] == [
        ("human", "我下周要去成都出差,顺便想吃火锅"),
        ("ai", "好的,记下了"),
    ]
    assert mp.stats("alice").episodes == 2
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    job = history.end_session()
    status = wait_for(lambda: mp.job_status(job))
    assert status["state"] == "SUCCESS" and status["result"]["status"] == "done", status
    assert mp.latest_knowledge("alice")[0].content == GOOD["knowledge"][0]["content"]
    history.clear()
    assert history.messages == [] and mp.stats("alice").episodes == 2


def test_chat_history_keeps_every_role_and_skips_a_message_with_nothing_said(
    mp: MemoryPlatform,
) -> None:
    """System and tool messages read back as what they were; an AI message that only
    calls tools says nothing to keep."""
    history = MemoryChatMessageHistory(mp, "alice", "s2")
    history.add_messages([
        SystemMessage("你是旅行助手"),
        HumanMessage("查一下成都的天气"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "成都"}, "id": "t1"}]),
        ToolMessage("成都 晴 18°C", tool_call_id="t1"),
        AIMessage("成都今天晴,18°C"),
    ])  # fmt: skip

    recorded = MemoryChatMessageHistory(mp, "alice", "s2").messages
    assert [(type(m).__name__, m.content) for m in recorded] == [
        ("SystemMessage", "你是旅行助手"),
        ("HumanMessage", "查一下成都的天气"),
        ("ToolMessage", "成都 晴 18°C"),
        ("AIMessage", "成都今天晴,18°C"),
    ]
    assert mp.stats("alice").episodes == 4


def test_tools_read_relative_times_at_the_conversations_time_and_k_bounds_the_retriever(
    mp: MemoryPlatform,
) -> None:
    tools = {t.name: t for t in memory_tools(mp, "alice", reference_time=NOW)}
    created = tools["create_memory"].invoke(
        call("create_memory", "c1", subject="I", memory_type="event", topic="slept",
             object="badly", attributes={"time": "yesterday"})
    )  # fmt: skip
    memory = mp.get_memory("alice", json.loads(str(created.content))["memory_id"]).memory
    assert memory.attributes["time"] == (NOW - timedelta(days=1)).date().isoformat()

    run_agent(scripted_model(), list(tools.values()), [HumanMessage("...")])
    mp.wait_for_indexing("alice")
    deep = {"expand_depth": 1, "min_relevance": 0.0}
    retriever = MemoryRetriever(platform=mp, user_id="alice", search_kwargs=deep)
    one = MemoryRetriever(platform=mp, user_id="alice", k=1, search_kwargs=deep)
    assert len(retriever.invoke("mood")) > 1
    assert len(one.invoke("mood")) == len(retriever.invoke("mood", k=1)) == 1  # a match only


@pytest.mark.slow
def test_the_example_agent_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "langchain_agent.py"),
            "--db",
            str(tmp_path / "a.db"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "agent: Your mood is low today, most likely because you slept badly." in done.stdout
    assert done.stdout.count("success=True") == 4
    assert "[related] I sleep badly" in done.stdout

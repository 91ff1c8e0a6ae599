"""A LangChain tool-calling agent with long-term memory, runnable offline.

    .venv/bin/python examples/langchain_agent.py [--db agent.db]

The chat model here is langchain-core's scripted fake, so the example runs with no LLM;
replace ``scripted_model()`` with any chat model that supports tool calling, e.g.
``ChatOpenAI(model="gpt-4o-mini")`` from ``langchain-openai``. Everything else stays.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from pydantic import Field

from memory_platform import MemoryPlatform, Settings, system_prompt
from memory_platform.integrations.langchain import MemoryRetriever, memory_tools

USER = "agent-demo"
NOW = datetime(2025, 11, 5, 9, 30, tzinfo=timezone(timedelta(hours=8)))


class ScriptedChatModel(GenericFakeChatModel):
    """The fake chat model of langchain-core, accepting ``bind_tools`` like a real one."""

    bound_tools: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        self.bound_tools = list(tools)
        return self


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "args": arguments, "id": call_id, "type": "tool_call"}


def scripted_model() -> ScriptedChatModel:
    """What a real model would answer to the two user turns below."""
    turns = [
        AIMessage(
            content="",
            tool_calls=[
                call(
                    "create_memory",
                    "c1",
                    subject="I",
                    memory_type="event",
                    topic="sleep",
                    object="badly",
                    attributes={"time": "last night"},
                ),
                call(
                    "create_memory",
                    "c2",
                    subject="I",
                    memory_type="fact",
                    topic="mood",
                    object="low",
                    attributes={"time": "today"},
                ),
                call(
                    "link_memories",
                    "c3",
                    source_memory_description="I slept badly",
                    target_memory_description="my mood is low",
                    relation_type="causes",
                ),
            ],
        ),
        AIMessage(content="Noted. Sorry you slept badly."),
        AIMessage(
            content="",
            tool_calls=[call("search_memories", "c4", query="why is my mood low?", expand_depth=1)],
        ),
        AIMessage(content="Your mood is low today, most likely because you slept badly."),
    ]
    return ScriptedChatModel(messages=iter(turns))


def run_agent(model: Any, tools: Sequence[BaseTool], messages: list[BaseMessage]) -> AIMessage:
    """The tool-calling loop: call the model, run its tool calls, repeat until it answers."""
    by_name = {tool.name: tool for tool in tools}
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return reply  # type: ignore[no-any-return]
        for tool_call in reply.tool_calls:
            messages.append(by_name[tool_call["name"]].invoke(tool_call))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="agent.db", help="SQLite file of the memory store")
    args = parser.parse_args(argv)
    with MemoryPlatform(Settings(sqlite_path=args.db)) as mp:
        mp.delete_user(USER)  # every run starts from an empty memory
        tools = memory_tools(mp, USER, reference_time=NOW)
        model = scripted_model().bind_tools(tools)
        messages: list[BaseMessage] = [SystemMessage(system_prompt(lang="en"))]
        for question in (
            "I slept badly last night and I'm in a low mood today.",
            "Why am I in a low mood?",
        ):
            messages.append(HumanMessage(question))
            answer = run_agent(model, tools, messages)
            print(f"user: {question}\nagent: {answer.content}")
        for message in messages:
            if message.type == "tool":
                result = json.loads(str(message.content))
                print(f"  tool {message.name}: success={result['success']}")
        mp.wait_for_indexing(USER)
        retriever = MemoryRetriever(platform=mp, user_id=USER, search_kwargs={"expand_depth": 1})
        for doc in retriever.invoke("why is my mood low?"):
            print(
                f"  [{doc.metadata['layer']}] {doc.page_content} (score {doc.metadata['score']:.2f})"
            )


if __name__ == "__main__":
    main()

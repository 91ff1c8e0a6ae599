"""LangChain's own standard test suites (``langchain-tests``) run against the adapter.

These are the suites LangChain uses to certify integrations: the retriever's, and the
unit and integration suites of the tools. The store behind them is a real embedded store
with real embeddings, filled once for the module.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from memory_platform import MemoryPlatform
from memory_platform.config import Settings
from memory_platform.integrations.langchain import MemoryRetriever, memory_tools

USER = "standard-suite"
_state: dict[str, MemoryPlatform] = {}


@pytest.fixture(scope="module", autouse=True)
def filled_platform() -> Iterator[MemoryPlatform]:
    folder = Path(tempfile.mkdtemp())
    with MemoryPlatform(Settings(sqlite_path=folder / "std.db", _env_file=None)) as mp:
        for topic, obj in [("likes", "green tea"), ("drinks", "tea every morning"),
                           ("bought", "a tea set"), ("grows", "tea plants")]:  # fmt: skip
            result = mp.execute_tool(
                USER, "create_memory",
                {"subject": "I", "memory_type": "fact", "topic": topic, "object": obj},
            )  # fmt: skip
            assert result["success"], result
        assert mp.wait_for_indexing(USER)
        _state["mp"] = mp
        yield mp
        _state.clear()


def platform() -> MemoryPlatform:
    return _state["mp"]


def tool_named(name: str) -> BaseTool:
    return next(t for t in memory_tools(platform(), USER) if t.name == name)


class TestMemoryRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[MemoryRetriever]:
        return MemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"platform": platform(), "user_id": USER}

    @property
    def retriever_query_example(self) -> str:
        return "tea"


class _SearchTool:
    @property
    def tool_constructor(self) -> BaseTool:
        return tool_named("search_memories")

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "what tea do I like?", "max_results": 3}


class TestSearchToolUnit(_SearchTool, ToolsUnitTests):
    pass


class TestSearchToolIntegration(_SearchTool, ToolsIntegrationTests):
    pass


class _CreateTool:
    @property
    def tool_constructor(self) -> BaseTool:
        return tool_named("create_memory")

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"subject": "I", "memory_type": "event", "topic": "visited", "object": "Hangzhou"}


class TestCreateToolUnit(_CreateTool, ToolsUnitTests):
    pass


class TestCreateToolIntegration(_CreateTool, ToolsIntegrationTests):
    pass


class _LinkTool:
    @property
    def tool_constructor(self) -> BaseTool:
        return tool_named("link_memories")

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {
            "source_memory_description": "I grows tea plants",
            "target_memory_description": "I bought a tea set",
            "relation_type": "related",
        }


class TestLinkToolUnit(_LinkTool, ToolsUnitTests):
    pass


class TestLinkToolIntegration(_LinkTool, ToolsIntegrationTests):
    pass

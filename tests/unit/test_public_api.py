"""The names integrations and outside checks import are pinned."""

from __future__ import annotations

import memory_platform


def test_public_names_are_pinned() -> None:
    assert memory_platform.__all__ == sorted(memory_platform.__all__)
    expected = {
        "MemoryPlatform",
        "Settings",
        "load_settings",
        "MemoryPlatformError",
        "InvalidInputError",
        "NotFoundError",
        "ConfigurationError",
        "StorageError",
        "BackendUnavailable",
        "TransientStorageError",
        "MemoryType",
        "RelationType",
        "system_prompt",
    }
    assert expected <= set(memory_platform.__all__)
    for name in memory_platform.__all__:
        assert hasattr(memory_platform, name), name


def test_facade_methods_exist_with_the_documented_names() -> None:
    for method in (
        "tool_definitions",
        "execute_tool",
        "handle_tool_calls",
        "create_memory",
        "link_memories",
        "add_episode",
        "add_episodes",
        "delete_memory",
        "delete_user",
        "export_user",
        "import_user",
        "search",
        "format_context",
        "add_messages",
        "end_session",
        "consolidate",
        "latest_knowledge",
        "sample_knowledge",
        "close",
        "from_env",
    ):
        assert callable(getattr(memory_platform.MemoryPlatform, method)), method


def test_errors_are_value_errors_where_input_is_at_fault() -> None:
    assert issubclass(memory_platform.InvalidInputError, ValueError)
    assert issubclass(memory_platform.TransientStorageError, memory_platform.StorageError)
    assert memory_platform.TransientStorageError("x").is_retryable()
    assert not memory_platform.InvalidInputError("x").is_retryable()

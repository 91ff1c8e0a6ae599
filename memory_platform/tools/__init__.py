"""The LLM-facing memory tools: OpenAI schemas, argument models, prompt kit, executor."""

from .arguments import (
    CreateMemoryArgs,
    ForgetMemoryArgs,
    LinkMemoriesArgs,
    SearchMemoriesArgs,
    UpdateMemoryArgs,
)
from .prompts import CORRECTION_EXAMPLES, FEW_SHOT_EXAMPLES, system_prompt
from .schemas import CORE_TOOLS, TOOL_NAMES, tool_definitions

__all__ = [
    "CORE_TOOLS",
    "CORRECTION_EXAMPLES",
    "FEW_SHOT_EXAMPLES",
    "TOOL_NAMES",
    "CreateMemoryArgs",
    "ForgetMemoryArgs",
    "LinkMemoriesArgs",
    "SearchMemoriesArgs",
    "UpdateMemoryArgs",
    "system_prompt",
    "tool_definitions",
]

"""The LLM-facing memory tools: OpenAI schemas, argument models, prompt kit, executor."""

from .arguments import CreateMemoryArgs, LinkMemoriesArgs, SearchMemoriesArgs
from .prompts import FEW_SHOT_EXAMPLES, system_prompt
from .schemas import TOOL_NAMES, tool_definitions

__all__ = [
    "FEW_SHOT_EXAMPLES",
    "TOOL_NAMES",
    "CreateMemoryArgs",
    "LinkMemoriesArgs",
    "SearchMemoriesArgs",
    "system_prompt",
    "tool_definitions",
]

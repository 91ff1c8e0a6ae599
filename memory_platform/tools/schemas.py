"""The memory tools in OpenAI ``tools`` format.

The first three are seed 000 Appendix A's (``create_memory``, ``link_memories``,
``search_memories``), each with one optional privacy argument added; ``update_memory``
(correct or retract, seed 000 §9.3) and ``forget_memory`` (seed 000 §9.2) follow the
same style. The Chinese variant carries the seed's enum values and descriptions; the
English one the same structure with English values. Whatever variant an agent was given,
the executor accepts both languages' values.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

__all__ = ["CORE_TOOLS", "TOOL_NAMES", "memory_type_description", "tool_definitions"]

TOOL_NAMES = (
    "create_memory",
    "link_memories",
    "search_memories",
    "update_memory",
    "forget_memory",
)

_TEXT: dict[str, dict[str, Any]] = {
    "zh": {
        "memory_types": ["事件", "事实", "关系", "观点"],
        "relation_types": ["因为", "所以", "导致", "引用", "基于", "相关"],
        "update_actions": ["纠正", "撤回"],
        "create": "创建一条新的记忆。记忆由主体、类型、主题、客体等组成,可以包含时间、地点等属性。",
        "subject": "记忆的主体(谁)。例如:'我'、'小明'、'用户'",
        "memory_type": "记忆类型。事件=有时间的动作;事实=稳定状态;关系=人际关系;观点=主观评价",
        "topic": "记忆的主题(做什么/是什么状态)。例如:'吃饭'、'情绪'、'学习'",
        "object": "记忆的客体(什么东西/什么状态)。例如:'白米饭'、'不开心'、'数学'",
        "attributes": "额外的属性信息,键值对形式,例如 时间、地点、原因、方式(时间会自动标准化)",
        "importance": "重要性等级,0-1之间。0.3=日常琐事,0.5=一般事件,0.8=重要事件,1.0=关键记忆",
        "link": "在两条已存在的记忆之间建立关联关系(因果、引用等)",
        "source": "源记忆的描述(用于查找)。例如:'我今天不开心'",
        "target": "目标记忆的描述(用于查找)。例如:'我摔东西'",
        "relation_type": "关系类型。因为/所以/导致:源记忆是原因;引用/基于:目标记忆基于源记忆;相关:一般关联",
        "link_importance": "关联的重要性,0-1之间",
        "search": "根据语义搜索相关记忆,用于回答问题或回忆往事",
        "query": "搜索查询,可以是问题或关键词。例如:'我什么时候吃过饭?'",
        "filter_types": "限定搜索的记忆类型",
        "time_range": "时间范围过滤",
        "start": "开始时间,例如 '2025-11-01' 或 '上周一'",
        "end": "结束时间,例如 '2025-11-05' 或 '今天'",
        "max_results": "最多返回多少条记忆",
        "expand_depth": "关联扩展深度(0=仅直接匹配,1=扩展1跳,2=扩展2跳)",
        "min_relevance": "最低相关度(0-1),低于它的记忆不作为匹配返回;默认使用平台配置",
        "sensitive": "是否为隐私记忆(健康、财务、密码、证件号码等)。不填时按规则自动判断",
        "include_sensitive": "是否包含隐私记忆;仅当用户明确问到这些隐私信息时设为 true",
        "update": "纠正或撤回一条已存在的记忆。旧版本不会被覆盖:纠正会生成新版本并保留旧版本的历史;撤回表示这件事不成立。例如用户说“不对,我搬去的是巴黎不是柏林”时纠正,说“那件事没发生过”时撤回",
        "update_description": "要修改的记忆的描述(用于查找),或记忆 ID。例如:'我搬到柏林'",
        "update_action": "纠正=修改字段并保留旧版本;撤回=这条记忆不成立(不删除)",
        "update_object": "更正后的客体。例如:'巴黎'",
        "update_attributes": "要更正的属性,键值对;值为空字符串表示删除该属性",
        "update_importance": "更正后的重要性,0-1之间",
        "update_type": "更正后的记忆类型",
        "reason": "修改原因。例如:'用户说记错了城市'",
        "forget": "彻底删除一条记忆(包括它的历史版本和由它得出的知识),只留下不含内容的审计记录。仅在用户明确要求忘掉时使用",
        "forget_description": "要删除的记忆的描述(用于查找),或记忆 ID",
    },
    "en": {
        "memory_types": ["event", "fact", "relation", "opinion"],
        "relation_types": ["because", "so", "causes", "cites", "based_on", "related"],
        "update_actions": ["correct", "retract"],
        "create": "Create a new memory. A memory has a subject, a type, a topic and optionally an object, plus attributes such as time and place.",
        "subject": "Who the memory is about, e.g. 'I', 'Tom', 'the user'",
        "memory_type": "Memory type: event = an action at a time; fact = a stable state; relation = a relationship between people; opinion = a subjective judgement",
        "topic": "What is done or what state, e.g. 'eat', 'mood', 'study'",
        "object": "What it is done to or what the state is, e.g. 'rice', 'unhappy', 'maths'",
        "attributes": "Extra attributes as key-value pairs, e.g. time, place, reason, manner (times are normalised automatically)",
        "importance": "Importance from 0 to 1: 0.3 = everyday trivia, 0.5 = ordinary, 0.8 = important, 1.0 = critical",
        "link": "Link two existing memories (cause, reference, ...)",
        "source": "Description of the source memory, used to find it, e.g. 'I was unhappy today'",
        "target": "Description of the target memory, used to find it, e.g. 'I threw things'",
        "relation_type": "Relation type. because/so/causes: the source memory is the cause; cites/based_on: the target memory draws on the source; related: a general association",
        "link_importance": "Importance of the link, 0 to 1",
        "search": "Search memories by meaning, to answer a question or recall the past",
        "query": "The search query, a question or keywords, e.g. 'When did I last eat?'",
        "filter_types": "Only these memory types",
        "time_range": "Only memories in this time range",
        "start": "Start time, e.g. '2025-11-01' or 'last Monday'",
        "end": "End time, e.g. '2025-11-05' or 'today'",
        "max_results": "Maximum number of memories to return",
        "expand_depth": "How far to follow links (0 = direct matches only, 1 = one hop, 2 = two hops)",
        "min_relevance": "Lowest relevance (0-1) a memory needs to be returned as a match; defaults to the platform's setting",
        "sensitive": "Whether the memory is private (health, finances, passwords, identity numbers, ...); decided by rules when omitted",
        "include_sensitive": "Also return private memories; set true only when the user explicitly asks about that private information",
        "update": "Correct or retract an existing memory. Nothing is overwritten: a correction writes a new version and keeps the old one in the history; a retraction says it never happened. E.g. correct when the user says 'no, I moved to Paris, not Berlin'; retract on 'that never happened'",
        "update_description": "Description of the memory to change (used to find it), or its memory id, e.g. 'I moved to Berlin'",
        "update_action": "correct = change fields, keeping the old version; retract = the memory is not true (it is not deleted)",
        "update_object": "The corrected object, e.g. 'Paris'",
        "update_attributes": "Attributes to correct as key-value pairs; an empty string removes that attribute",
        "update_importance": "The corrected importance, 0 to 1",
        "update_type": "The corrected memory type",
        "reason": "Why it changes, e.g. 'the user said the city was wrong'",
        "forget": "Delete a memory for good (with its earlier versions and the knowledge drawn from it), leaving only an audit record without content. Use only when the user explicitly asks to forget it",
        "forget_description": "Description of the memory to delete (used to find it), or its memory id",
    },
}


def memory_type_description(lang: Literal["zh", "en"]) -> str:
    """What each memory type means, as the tools tell an agent (the extraction prompt
    tells its LLM the same: consolidation treats an event and a state differently)."""
    return str(_TEXT[lang]["memory_type"])


def _definitions(lang: str) -> list[dict[str, Any]]:
    t = _TEXT[lang]
    return [
        {
            "type": "function",
            "function": {
                "name": "create_memory",
                "description": t["create"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        "subject": {"type": "string", "description": t["subject"]},
                        "memory_type": {
                            "type": "string",
                            "enum": t["memory_types"],
                            "description": t["memory_type"],
                        },
                        "topic": {"type": "string", "description": t["topic"]},
                        "object": {"type": "string", "description": t["object"]},
                        "attributes": {
                            "type": "object",
                            "description": t["attributes"],
                            "additionalProperties": {"type": "string"},
                        },
                        "importance": {
                            "type": "number",
                            "minimum": 0,
                            "maximum": 1,
                            "default": 0.5,
                            "description": t["importance"],
                        },
                        "sensitive": {"type": "boolean", "description": t["sensitive"]},
                    },
                    "required": ["subject", "memory_type", "topic"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "link_memories",
                "description": t["link"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        "source_memory_description": {"type": "string", "description": t["source"]},
                        "target_memory_description": {"type": "string", "description": t["target"]},
                        "relation_type": {
                            "type": "string",
                            "enum": t["relation_types"],
                            "description": t["relation_type"],
                        },
                        "importance": {
                            "type": "number",
                            "default": 0.6,
                            "description": t["link_importance"],
                        },
                    },
                    "required": [
                        "source_memory_description",
                        "target_memory_description",
                        "relation_type",
                    ],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "search_memories",
                "description": t["search"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": t["query"]},
                        "memory_types": {
                            "type": "array",
                            "items": {"enum": t["memory_types"]},
                            "description": t["filter_types"],
                        },
                        "time_range": {
                            "type": "object",
                            "properties": {
                                "start": {"type": "string", "description": t["start"]},
                                "end": {"type": "string", "description": t["end"]},
                            },
                            "description": t["time_range"],
                        },
                        "max_results": {
                            "type": "integer",
                            "default": 10,
                            "description": t["max_results"],
                        },
                        "expand_depth": {
                            "type": "integer",
                            "default": 1,
                            "description": t["expand_depth"],
                        },
                        "min_relevance": {
                            "type": "number",
                            "minimum": 0,
                            "maximum": 1,
                            "description": t["min_relevance"],
                        },
                        "include_sensitive": {
                            "type": "boolean",
                            "default": False,
                            "description": t["include_sensitive"],
                        },
                    },
                    "required": ["query"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "update_memory",
                "description": t["update"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        "memory_description": {
                            "type": "string",
                            "description": t["update_description"],
                        },
                        "action": {
                            "type": "string",
                            "enum": t["update_actions"],
                            "default": t["update_actions"][0],
                            "description": t["update_action"],
                        },
                        "object": {"type": "string", "description": t["update_object"]},
                        "attributes": {
                            "type": "object",
                            "description": t["update_attributes"],
                            "additionalProperties": {"type": "string"},
                        },
                        "importance": {
                            "type": "number",
                            "minimum": 0,
                            "maximum": 1,
                            "description": t["update_importance"],
                        },
                        "memory_type": {
                            "type": "string",
                            "enum": t["memory_types"],
                            "description": t["update_type"],
                        },
                        "sensitive": {"type": "boolean", "description": t["sensitive"]},
                        "reason": {"type": "string", "description": t["reason"]},
                    },
                    "required": ["memory_description"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "forget_memory",
                "description": t["forget"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        "memory_description": {
                            "type": "string",
                            "description": t["forget_description"],
                        },
                    },
                    "required": ["memory_description"],
                },
            },
        },
    ]


_CACHE = {lang: _definitions(lang) for lang in _TEXT}


CORE_TOOLS = TOOL_NAMES[:3]
"""Seed 000 Appendix A's tools, in its order: what :func:`tool_definitions` gives by default."""


def tool_definitions(
    lang: Literal["zh", "en"] = "zh", extended: bool = False
) -> list[dict[str, Any]]:
    """The memory tools in OpenAI ``tools`` format (a fresh copy each call).

    By default the three tools of seed 000 Appendix A, in its order; with ``extended``
    also ``update_memory`` and ``forget_memory``, for agents allowed to correct and
    forget.

    Raises:
        InvalidInputError: ``lang`` is neither ``zh`` nor ``en``.
    """
    if lang not in _CACHE:
        from ..errors import InvalidInputError

        raise InvalidInputError("must be 'zh' or 'en'", "lang")
    chosen = _CACHE[lang] if extended else _CACHE[lang][: len(CORE_TOOLS)]
    return copy.deepcopy(chosen)

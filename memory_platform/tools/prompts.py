"""The prompt kit of seed 000 §4.5: a system prompt and few-shot examples for the tools.

``FEW_SHOT_EXAMPLES`` is data, not just prose: each example is a user message with the
tool calls it should produce, so the demo replays them and the tests check the graph
they build. Dates in the examples assume the message was sent on ``EXAMPLE_TIME``.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, Literal

__all__ = ["CORRECTION_EXAMPLES", "EXAMPLE_TIME", "FEW_SHOT_EXAMPLES", "system_prompt"]

EXAMPLE_TIME = datetime(2025, 11, 5, 10, 0, tzinfo=timezone(timedelta(hours=8)))
"""The message time the seed's examples were written for (2025-11-05, UTC+8)."""


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


FEW_SHOT_EXAMPLES: list[dict[str, Any]] = [
    {
        "title": "简单事件 (§4.2.2 示例1)",
        "user": "我今天吃了白米饭",
        "calls": [
            _call("create_memory", subject="我", memory_type="事件", topic="吃饭", object="白米饭",
                  attributes={"时间": "今天"}, importance=0.3),
        ],
    },
    {
        "title": "事实状态 (§4.2.2 示例2)",
        "user": "小明喜欢打篮球",
        "calls": [
            _call("create_memory", subject="小明", memory_type="事实", topic="喜好", object="打篮球",
                  importance=0.5),
        ],
    },
    {
        "title": "复杂观点 (§4.2.2 示例3)",
        "user": "我觉得小明昨天说的话是在撒谎",
        "calls": [
            _call("create_memory", subject="我", memory_type="观点", topic="认为撒谎", object="小明的陈述",
                  attributes={"时间": "昨天", "基于": "他的话前后矛盾"}, importance=0.7),
        ],
    },
    {
        "title": "因果关联 (§4.3.1)",
        "user": "我今天不开心,所以摔了东西",
        "calls": [
            _call("create_memory", subject="我", memory_type="事实", topic="情绪", object="不开心",
                  attributes={"时间": "今天"}),
            _call("create_memory", subject="我", memory_type="事件", topic="摔东西",
                  attributes={"时间": "今天"}),
            _call("link_memories", source_memory_description="我今天不开心",
                  target_memory_description="我摔东西", relation_type="导致"),
        ],
    },
    {
        "title": "购物 (§4.5.1)",
        "user": "我昨天去超市买了苹果和香蕉",
        "calls": [
            _call("create_memory", subject="我", memory_type="事件", topic="购物", object="水果",
                  attributes={"时间": "2025-11-04", "地点": "超市", "物品": "苹果,香蕉"}, importance=0.4),
        ],
    },
    {
        "title": "人际关系 (§4.5.1)",
        "user": "小明是我的好朋友",
        "calls": [
            _call("create_memory", subject="我", memory_type="关系", topic="朋友关系", object="小明",
                  attributes={"程度": "好朋友"}, importance=0.7),
        ],
    },
    {
        "title": "观点与原因 (§4.5.1)",
        "user": "我很讨厌下雨天,因为会影响我的心情",
        "calls": [
            _call("create_memory", subject="我", memory_type="观点", topic="讨厌", object="下雨天",
                  importance=0.6),
            _call("create_memory", subject="下雨天", memory_type="事实", topic="影响", object="我的心情",
                  importance=0.5),
            _call("link_memories", source_memory_description="下雨天影响心情",
                  target_memory_description="我讨厌下雨天", relation_type="因为"),
        ],
    },
    {
        "title": "基础事件 (§4.5.2 示例1)",
        "user": "我今天早上8点吃了面包",
        "calls": [
            _call("create_memory", subject="我", memory_type="事件", topic="吃早餐", object="面包",
                  attributes={"时间": "2025-11-05 08:00", "餐次": "早餐"}, importance=0.3),
        ],
    },
    {
        "title": "复杂因果 (§4.5.2 示例2)",
        "user": "昨晚我失眠了,所以今天很困,没心情工作",
        "calls": [
            _call("create_memory", subject="我", memory_type="事件", topic="失眠",
                  attributes={"时间": "昨晚"}, importance=0.6),
            _call("create_memory", subject="我", memory_type="事实", topic="身体状态", object="很困",
                  attributes={"时间": "今天"}, importance=0.5),
            _call("create_memory", subject="我", memory_type="事实", topic="工作状态", object="没心情",
                  attributes={"时间": "今天"}, importance=0.5),
            _call("link_memories", source_memory_description="我失眠",
                  target_memory_description="我很困", relation_type="导致"),
            _call("link_memories", source_memory_description="我很困",
                  target_memory_description="我没心情工作", relation_type="导致"),
        ],
    },
    {
        "title": "转述与观点 (§4.5.2 示例3)",
        "user": "小明告诉我他考了满分,但我觉得他在吹牛",
        "calls": [
            _call("create_memory", subject="小明", memory_type="事件", topic="考试", object="满分",
                  attributes={"来源": "小明本人陈述"}, importance=0.4),
            _call("create_memory", subject="我", memory_type="观点", topic="怀疑",
                  object="小明考满分的真实性", attributes={"评价": "可能在吹牛"}, importance=0.5),
            _call("link_memories", source_memory_description="小明考试满分",
                  target_memory_description="我怀疑真实性", relation_type="基于"),
        ],
    },
]  # fmt: skip

CORRECTION_EXAMPLES: list[dict[str, Any]] = [
    {
        "title": "纠正 (§9.3 记忆纠错)",
        "setup": [
            _call("create_memory", subject="我", memory_type="事件", topic="搬家", object="柏林",
                  attributes={"时间": "上个月"}, importance=0.8),
        ],
        "user": "不对,我上个月搬去的是巴黎,不是柏林",
        "calls": [
            _call("update_memory", memory_description="我上个月搬家到柏林", action="纠正",
                  object="巴黎", reason="用户更正了城市"),
        ],
    },
    {
        "title": "撤回 (§9.3 记忆纠错)",
        "setup": [
            _call("create_memory", subject="我", memory_type="事件", topic="吵架", object="小红",
                  attributes={"时间": "昨天"}, importance=0.6),
        ],
        "user": "其实我昨天没和小红吵架,是我记错了",
        "calls": [
            _call("update_memory", memory_description="我昨天和小红吵架", action="撤回",
                  reason="用户说这件事没有发生"),
        ],
    },
    {
        "title": "隐私 (§9.2)",
        "setup": [],
        "user": "我上周被确诊了糖尿病",
        "calls": [
            _call("create_memory", subject="我", memory_type="事实", topic="确诊", object="糖尿病",
                  attributes={"时间": "上周"}, importance=0.9, sensitive=True),
        ],
    },
    {
        "title": "遗忘 (§9.2)",
        "setup": [
            _call("create_memory", subject="我", memory_type="关系", topic="前任", object="小李",
                  importance=0.6),
        ],
        "user": "把我跟你说过的前任小李的事忘掉吧",
        "calls": [
            _call("forget_memory", memory_description="我的前任小李"),
        ],
    },
]  # fmt: skip
"""Seed-style examples of ``update_memory`` and ``forget_memory`` (seed 000 §9.2, §9.3):
``setup`` holds the calls of earlier turns that stored what the user now changes."""

_ZH = """你是一个具有记忆能力的AI助手。今天是 {today}。在对话中,你可以使用以下工具管理记忆:

1. create_memory:创建新记忆
   - 用户告诉你事实、发生的事情或他的观点时使用
   - 必须给出:主体(谁)、类型(事件/事实/关系/观点)、主题(做什么)
   - 可选给出:客体(什么东西)、属性(时间/地点/原因等)
   - 重要性:日常琐事0.3,一般事件0.5,重要事件0.8,关键记忆1.0
2. link_memories:关联两条已有记忆
   - 用户表达因果关系(因为、所以、导致)时使用,源记忆是原因
   - 用户引用之前的事情(基于、引用)时使用
3. search_memories:搜索记忆
   - 用户询问过去的事情,或回答需要回忆相关信息时使用

记忆构建原则:
- 时间尽可能具体(把"今天"写成实际日期;写"今天"也可以,系统会按消息时间换算)
- 主体要明确:"我"指用户,"你"指AI助手
- 复杂句子拆成多条记忆,再用 link_memories 关联
- 转述的内容要标明来源(用引用/基于关系)
- 按内容判断重要性,不是所有事情都重要
"""

_ZH_EXTENDED = """4. update_memory:纠正或撤回已有记忆
   - 用户指出记忆有误时纠正(只给出要改的字段),旧版本会保留在历史中
   - 用户说某件事没有发生时撤回
5. forget_memory:彻底删除一条记忆
   - 仅在用户明确要求忘掉时使用
- 健康、财务、密码、证件号码等隐私内容标记 sensitive=true;只有用户明确问到时才用 include_sensitive 搜索
"""

_EN = """You are an AI assistant with long-term memory. Today is {today}. Manage memories with these tools:

1. create_memory: create a new memory
   - use it when the user tells you a fact, something that happened, or an opinion
   - always give: subject (who), type (event/fact/relation/opinion), topic (what is done)
   - optionally give: object (what), attributes (time, place, reason, ...)
   - importance: everyday trivia 0.3, ordinary 0.5, important 0.8, critical 1.0
2. link_memories: link two existing memories
   - when the user states a cause (because, so, led to); the source memory is the cause
   - when the user refers back to something earlier (based on, cites)
3. search_memories: search memories
   - when the user asks about the past, or answering needs something remembered

Principles:
- make times concrete (write the date for "today"; relative words are also converted using the message time)
- make the subject explicit: "I" is the user, "you" is the assistant
- split complex sentences into several memories and link them
- mark reported speech with its source (a cites / based_on link)
- judge importance by content; not everything matters
"""

_EN_EXTENDED = """4. update_memory: correct or retract an existing memory
   - correct when the user says a memory is wrong (give only the fields that change); the old version stays in the history
   - retract when the user says something never happened
5. forget_memory: delete a memory for good
   - only when the user explicitly asks you to forget it
- mark private content (health, finances, passwords, identity numbers) sensitive=true; search with include_sensitive only when the user asks about it
"""


def _format_examples(lang: str, extended: bool = False) -> str:
    header = (
        "示例:"
        if lang == "zh"
        else "Examples (the user speaks Chinese here; reply with the same kind of calls in any language):"
    )
    lines = [header]
    for example in FEW_SHOT_EXAMPLES + (CORRECTION_EXAMPLES if extended else []):
        lines.append(
            ("用户:" if lang == "zh" else "User: ")
            + json.dumps(example["user"], ensure_ascii=False)
        )
        for call in example["calls"]:
            args = json.dumps(call["arguments"], ensure_ascii=False)
            lines.append(f"→ {call['name']}({args})")
    return "\n".join(lines)


def system_prompt(
    lang: Literal["zh", "en"] = "zh",
    today: date | None = None,
    examples: bool = True,
    extended: bool = False,
) -> str:
    """The system prompt that teaches an agent to use the memory tools.

    Args:
        lang: ``zh`` (the seed's wording) or ``en``.
        today: the date to state in the prompt; defaults to today (UTC).
        examples: append the few-shot examples of seed §4.5.2.
        extended: also teach ``update_memory`` and ``forget_memory`` (give the agent
            ``tool_definitions(extended=True)``).
    """
    if lang not in ("zh", "en"):
        from ..errors import InvalidInputError

        raise InvalidInputError("must be 'zh' or 'en'", "lang")
    day = (today or datetime.now(UTC).date()).isoformat()
    text = (_ZH if lang == "zh" else _EN).format(today=day)
    if extended:
        text += _ZH_EXTENDED if lang == "zh" else _EN_EXTENDED
    return text + "\n" + _format_examples(lang, extended) if examples else text

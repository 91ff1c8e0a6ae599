"""Decides how to search: expand through the graph or not, and along which relations.

The heuristic (seed 000 §12.3.2) plans every search: it expands when the query asks for
causes or relations, in Chinese or English. An LLM planner, when configured, is asked
only when that search found nothing (a search that finds something waits for no LLM):
it rewrites the query, translates it into the other of Chinese and English (a memory
told in one language is found by a question in the other only about half the time, since
the embedding puts a question nearer to anything in its own language) and may expand
further; the heuristic is the fallback when it fails. It does not narrow a search to
memory types: a guessed type shut out every episode (the turns of a conversation have
none) and the memories told under another type, so "What car do I drive?" planned as a
fact found nothing of a user whose car was only said in a chat; a type is the caller's
filter (``memory_types``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from ..errors import MemoryPlatformError
from ..llm import LLMClient, LLMUnavailableError
from ..models import LinkType

__all__ = ["LLMQueryPlanner", "QueryPlan", "plan_heuristically"]

log = logging.getLogger(__name__)

WHY_WORDS = ("为什么", "为何", "怎么会", "原因", "why", "reason", "how come")
"""Questions after a cause: only the causes of a match are followed, not its effects."""
CAUSAL_WORDS = (
    "因为", "为什么", "为何", "原因", "导致", "所以", "怎么会", "结果", "由于",
    "why", "because", "cause", "caused", "causes", "reason", "due to", "led to", "lead to", "result",
)  # fmt: skip
RELATIONAL_WORDS = (
    "有关", "关于", "相关", "联系", "还有", "其他", "关联",
    "related", "relate", "about", "connected", "associated", "regarding", "else", "other",
)  # fmt: skip


class QueryPlan(BaseModel):
    """How one query is searched."""

    semantic_query: str
    """The text the channels search: the query itself from the rules; an LLM planner's
    rewrite, asked for and searched only when the query as asked matches nothing."""
    mode: Literal["fast", "deep", "auto"] = "auto"
    expand: bool = False
    expand_depth: int = Field(1, ge=0, le=3)
    relation_filters: list[LinkType] | None = None
    causes_only: bool = False
    other_language_query: str | None = None
    """The query as asked in the other of Chinese and English (LLM planner only): searched
    when the query itself finds nothing, for memories told in that language."""
    reason: str = ""


def _has_any(query: str, words: tuple[str, ...]) -> str | None:
    lowered = query.lower()
    for word in words:
        if word.isascii():
            padded = f" {lowered} ".replace("?", " ").replace(",", " ").replace(".", " ")
            if f" {word} " in padded:
                return word
        elif word in query:
            return word
    return None


def plan_heuristically(
    query: str, mode: Literal["fast", "deep", "auto"], expand_depth: int
) -> QueryPlan:
    """The rule-based plan: fast never expands, deep always does, auto on cue words.

    Weak vector matches also trigger expansion in auto mode; the retriever checks that
    after seeding, since only then is the best similarity known.
    """
    if mode == "fast" or expand_depth == 0:
        return QueryPlan(
            semantic_query=query, mode=mode, expand=False, expand_depth=0, reason=f"mode {mode}"
        )
    if mode == "deep":
        return QueryPlan(
            semantic_query=query,
            mode=mode,
            expand=True,
            expand_depth=expand_depth,
            reason="mode deep",
        )
    causal = _has_any(query, CAUSAL_WORDS)
    if causal:
        return QueryPlan(
            semantic_query=query,
            mode=mode,
            expand=True,
            expand_depth=expand_depth,
            relation_filters=[LinkType.CAUSES],
            causes_only=_has_any(query, WHY_WORDS) is not None,
            reason=f"causal cue {causal!r}",
        )
    relational = _has_any(query, RELATIONAL_WORDS)
    if relational:
        return QueryPlan(
            semantic_query=query,
            mode=mode,
            expand=True,
            expand_depth=expand_depth,
            reason=f"relational cue {relational!r}",
        )
    return QueryPlan(
        semantic_query=query, mode=mode, expand=False, expand_depth=expand_depth, reason="no cue"
    )


class _LLMPlan(BaseModel):
    semantic_query: str = Field(min_length=1, max_length=2000)
    expand_depth: int = Field(1, ge=0, le=2)
    relation_filters: list[str] | None = None
    mode: Literal["fast", "deep", "auto"] = "auto"
    other_language_query: str | None = Field(None, max_length=2000)

    @field_validator("relation_filters")
    @classmethod
    def _known(cls, value: list[str] | None) -> list[str] | None:
        from ..models import RelationType

        if value is None:
            return None
        out = []
        for item in value:
            try:
                out.append(RelationType(item).link_type.value)
            except ValueError:
                out.append(LinkType(item).value)
        return sorted(set(out))


_PLANNER_PROMPT = """You plan searches over a user's long-term memory graph.
Given the user's query, answer with one JSON object:
{"semantic_query": "<the query rewritten for semantic search, in its own language>",
 "expand_depth": 0, 1 or 2 (follow links between memories this many hops),
 "relation_filters": null or a list of 因为/导致/引用/基于/相关 to follow only those links,
 "mode": "fast" (no links), "deep" (follow links) or "auto",
 "other_language_query": the query translated into English if it is in Chinese, into
 Chinese otherwise (memories may have been told in either language)}
Causal questions (为什么, why) need expand_depth 1 and relation_filters ["导致"]."""


REST_AFTER_OUTAGE = 60.0
"""Seconds the LLM planner is not asked after its endpoint failed to answer (down, timed
out, rate limited): through an outage, one search a minute waits for the planner's
timeout, and the others are planned by the rules at once."""


def _with_llm_answer(rules: QueryPlan, answer: _LLMPlan, expand_depth: int) -> QueryPlan:
    """The rules' plan with the LLM's query, its translation and any expansion it asks
    for beyond theirs. The LLM adds and never takes away: a "why" question follows causes
    (seed 000 §12.5) whatever the model answered, and no plan goes deeper than the
    caller's ``expand_depth`` (0: direct matches only)."""
    plan = rules.model_copy(
        update={
            "semantic_query": answer.semantic_query,
            "other_language_query": (answer.other_language_query or "").strip() or None,
            "reason": "llm planner",
        }
    )
    wants = answer.mode == "deep" or (answer.mode == "auto" and answer.expand_depth > 0)
    if wants and rules.mode == "auto" and not rules.expand and expand_depth > 0:
        plan.expand = True
        plan.expand_depth = min(max(answer.expand_depth, 1), expand_depth)
        if answer.relation_filters:
            plan.relation_filters = [LinkType(v) for v in answer.relation_filters]
    return plan


class LLMQueryPlanner:
    """Plans with an LLM a search that found nothing as the rules planned it; falls back
    to the rules on any failure, and rests :data:`REST_AFTER_OUTAGE` seconds after the
    endpoint failed to answer.

    A search waits for its plan, so ``llm`` should be a client with a short budget
    (:meth:`LLMClient.with_budget`): with the extraction client's 30 s timeout and
    retries, an endpoint that accepted connections and never answered held every search
    for 91 s.
    """

    def __init__(self, llm: LLMClient, clock: Callable[[], float] = time.monotonic) -> None:
        self._llm = llm
        self._clock = clock
        self._resting_until = float("-inf")

    def plan(
        self, query: str, mode: Literal["fast", "deep", "auto"], expand_depth: int
    ) -> QueryPlan:
        fallback = plan_heuristically(query, mode, expand_depth)
        if self._clock() < self._resting_until:
            return fallback
        try:
            answer = self._llm.complete_json(
                [
                    {"role": "system", "content": _PLANNER_PROMPT},
                    {"role": "user", "content": query},
                ],
                _LLMPlan,
            )
        except LLMUnavailableError as exc:
            self._resting_until = self._clock() + REST_AFTER_OUTAGE
            log.warning(
                "query planner unavailable, the rules plan searches for the next %.0f s: %s",
                REST_AFTER_OUTAGE,
                exc,
            )
            return fallback
        except MemoryPlatformError as exc:
            log.info("query planner gave no usable plan, using the heuristic: %s", exc)
            return fallback
        return _with_llm_answer(fallback, answer, expand_depth)

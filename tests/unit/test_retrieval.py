"""Search planning, scoring details, the layered context and the search tool."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_platform import InvalidInputError, MemoryPlatform, Settings
from memory_platform.config import RetrievalSettings
from memory_platform.embeddings import QUERY_EMBED_CHARS, Embedder, clip_query, query_text
from memory_platform.errors import StorageError
from memory_platform.llm import LLMClient
from memory_platform.models import LexicalHit, LinkType, PathStep, VectorHit, VectorKind
from memory_platform.retrieval import SearchResult, format_context, plan_heuristically
from memory_platform.retrieval import planner as planner_module
from memory_platform.retrieval.context import NOTHING_RELEVANT
from memory_platform.retrieval.planner import REST_AFTER_OUTAGE, LLMQueryPlanner
from memory_platform.retrieval.results import ScoreComponents
from memory_platform.retrieval.retriever import turns_beside
from memory_platform.retrieval.scoring import (
    access_frequency,
    graph_proximity,
    recency,
    weighted_score,
)
from memory_platform.store.base import Seeds
from tests.support.openai_stub import OpenAIStub

USER = "retrieval-user"
NOW = datetime(2025, 11, 5, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "expand", "filters"),
    [
        ("我为什么今天不开心?", True, [LinkType.CAUSES]),
        ("Why did Caroline move?", True, [LinkType.CAUSES]),
        ("和小明有关的记忆", True, None),
        ("anything related to hiking", True, None),
        ("我今天吃了什么", False, None),
        ("What did Melanie paint?", False, None),
    ],
)
def test_auto_mode_expands_on_causal_and_relational_words(
    query: str, expand: bool, filters: list[LinkType] | None
) -> None:
    plan = plan_heuristically(query, "auto", 1)
    assert plan.expand is expand
    assert plan.relation_filters == filters


def test_fast_and_deep_modes_override_the_cues() -> None:
    assert plan_heuristically("为什么", "fast", 2).expand is False
    assert plan_heuristically("hello", "deep", 2).expand is True
    assert plan_heuristically("为什么", "auto", 0).expand is False


def test_a_why_question_follows_causes_only_and_a_cue_may_end_the_question() -> None:
    assert plan_heuristically("为什么我没心情工作?", "auto", 1).causes_only
    assert plan_heuristically("Why did Caroline move?", "auto", 1).causes_only
    led_to = plan_heuristically("What did the layoff lead to?", "auto", 1)
    assert led_to.relation_filters == [LinkType.CAUSES] and not led_to.causes_only  # effects too
    ending = plan_heuristically("was the rain the cause?", "auto", 1)
    assert ending.relation_filters == [LinkType.CAUSES]


def test_the_llm_planner_expands_within_the_callers_depth_and_never_a_fast_search() -> None:
    answer = {
        "semantic_query": "小明 的 猫",
        "expand_depth": 2,
        "relation_filters": ["相关"],
        "mode": "deep",
    }
    with OpenAIStub() as stub:
        planner = LLMQueryPlanner(LLMClient(stub.base_url, "planner", max_attempts=1))
        stub.reply(json.dumps(answer))
        stub.reply(json.dumps(answer))
        shallow = planner.plan("小明的猫叫什么", "auto", 1)
        fast = planner.plan("小明的猫叫什么", "fast", 2)

    assert (shallow.expand, shallow.expand_depth) == (True, 1)  # the caller's depth
    assert shallow.relation_filters == [LinkType.RELATED_TO]
    assert (fast.semantic_query, fast.expand) == ("小明 的 猫", False)
    named = planner_module._LLMPlan(semantic_query="x", relation_filters=["SUPERSEDES", "相关"])
    assert named.relation_filters == ["RELATED_TO", "SUPERSEDES"]  # a link's name or a relation's


def test_llm_planner_is_used_and_falls_back(embedder: Embedder) -> None:
    with OpenAIStub() as stub:
        planner = LLMQueryPlanner(
            LLMClient(stub.base_url, "planner", max_attempts=2, transport_retries=0)
        )
        stub.reply(
            json.dumps(
                {
                    "semantic_query": "心情 不好 原因",
                    "expand_depth": 2,
                    "relation_filters": ["导致"],
                    "mode": "deep",
                }
            )
        )
        planned = planner.plan("我为什么不开心", "auto", 2)
        stub.reply("this is not json")
        stub.reply('{"semantic_query": ""}')
        fallback = planner.plan("我为什么不开心", "auto", 1)
        stub.fail(503)
        unavailable = planner.plan("what is up", "auto", 1)

    assert (planned.semantic_query, planned.expand, planned.expand_depth) == (
        "心情 不好 原因",
        True,
        2,
    )
    assert planned.relation_filters == [LinkType.CAUSES]
    assert fallback.reason.startswith("causal cue") and fallback.relation_filters == [
        LinkType.CAUSES
    ]
    assert unavailable.reason == "no cue"
    assert len([r for r in stub.requests if r["path"].endswith("/chat/completions")]) == 4


def _planned(stub: OpenAIStub, tmp_path: Path, embedder: Embedder) -> MemoryPlatform:
    """A platform whose searches are planned by the scripted LLM of ``stub`` (and by it
    alone: no question is glossed, see the gloss's own tests)."""
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        llm_base_url=stub.base_url,
        llm_max_retries=1,
        retrieval={"english_gloss": False, "chinese_gloss": False},
        _env_file=None,
    )
    return MemoryPlatform(settings, embedder=embedder)


def test_a_configured_llm_is_asked_only_when_the_question_finds_nothing(
    tmp_path, embedder: Embedder
) -> None:
    """A search that finds something waits for no LLM; one that finds nothing as asked
    asks the planner, and searches as it rewrote the question."""
    with OpenAIStub() as stub, _planned(stub, tmp_path, embedder) as mp:
        mp.create_memory(USER, subject="我", memory_type="事实", topic="心情", object="不好")
        mp.wait_for_indexing(USER)
        found = mp.search(USER, "我今天心情怎么样", record_access=False)
        asked_when_found = stub.chat_requests()
        stub.reply(json.dumps({"semantic_query": "我 心情 不好", "expand_depth": 0}))
        rewritten = mp.search(USER, "最近那件事", record_access=False)
    assert [r.text for r in found][:1] == ["我 心情 不好"] and asked_when_found == 0
    assert [r.text for r in rewritten] == ["我 心情 不好"]
    assert stub.requests[-1]["body"]["messages"][-1]["content"] == "最近那件事"


def test_an_llm_plan_adds_to_the_rules_and_never_takes_away(tmp_path, embedder: Embedder) -> None:
    """Seed 000 §12.5's causal walk with a model that ignores the prompt's advice: asked
    for a why question that found nothing as asked, it plans a fast search, yet the bad
    night still comes through the causal link; a caller's expand_depth 0 is not deepened
    by a model that asks for 2; and a model may expand a question whose words give the
    rules no cue (the boss's overtime, linked to the mood, matches no word of it)."""
    with OpenAIStub() as stub, _planned(stub, tmp_path, embedder) as mp:
        mood = mp.create_memory(USER, subject="我", memory_type="事实", topic="心情", object="不好")
        night = mp.create_memory(
            USER, subject="我", memory_type="事件", topic="睡眠", object="不好"
        )
        assert mp.link_memories(USER, night, mood, "导致")["success"]
        work = mp.create_memory(
            USER, subject="老板", memory_type="事件", topic="派来", object="加班"
        )
        assert mp.link_memories(USER, work, mood, "相关")["success"]
        assert mp.wait_for_indexing(USER)
        fast = {"semantic_query": "我 心情 不好", "expand_depth": 0, "mode": "fast"}
        stub.reply(json.dumps(fast))
        why = mp.search(USER, "这是为什么", record_access=False)
        stub.reply(json.dumps(fast | {"expand_depth": 2, "mode": "deep"}))
        direct_only = mp.search(USER, "这是为什么", expand_depth=0, record_access=False)
        stub.reply(json.dumps(fast | {"expand_depth": 1, "mode": "auto"}))
        asked = mp.search(USER, "最近那件事", record_access=False)
        stub.reply(json.dumps(fast))
        unasked = mp.search(USER, "最近那件事", record_access=False)
    assert stub.chat_requests() == 4  # each found nothing as asked
    assert [(r.id, r.layer) for r in why] == [(mood, "direct"), (night, "related")]
    assert "related" not in {r.layer for r in direct_only}
    assert (work, "related") in [(r.id, r.layer) for r in asked]  # the model's expansion
    assert work not in [r.id for r in unasked]


def test_the_llm_planner_gives_the_query_in_the_other_language() -> None:
    with OpenAIStub() as stub:
        planner = LLMQueryPlanner(LLMClient(stub.base_url, "planner", max_attempts=1))
        plan = {
            "semantic_query": "我对什么过敏？",
            "other_language_query": " What am I allergic to? ",
        }
        stub.reply(json.dumps(plan))
        translated = planner.plan("我对什么过敏？", "auto", 1)
        stub.reply(json.dumps({"semantic_query": "我对什么过敏？", "other_language_query": "  "}))
        blank = planner.plan("我对什么过敏？", "auto", 1)
    assert translated.other_language_query == "What am I allergic to?"
    assert blank.other_language_query is None
    assert "other_language_query" in stub.requests[0]["body"]["messages"][0]["content"]


def test_a_question_that_finds_nothing_is_asked_again_in_the_other_language(
    tmp_path, embedder: Embedder
) -> None:
    """Told in English, asked in Chinese: the question finds nothing as asked (the
    embedding puts it nearer to any Chinese text than to its English answer), and the
    planner's translation finds the fact. A question that does find something as asked
    is not searched again."""
    told = [
        "I work as a nurse at the city hospital.",
        "We are moving to a new flat in June.",
        "My grandmother taught me to make dumplings.",
        "I drive an old blue Toyota.",
        "I'm saving money for a trip to Japan.",
        "My husband snores loudly.",
    ]
    with OpenAIStub() as stub, _planned(stub, tmp_path, embedder) as mp:
        for i, said in enumerate(told):
            mp.add_messages(USER, f"s{i}", [{"role": "user", "content": said}])
        assert mp.wait_for_indexing(USER)
        asked = {"semantic_query": "我开什么车？", "expand_depth": 0}
        stub.reply(json.dumps(asked))
        untranslated = mp.search(USER, "我开什么车？", record_access=False)
        stub.reply(json.dumps(asked | {"other_language_query": "What car do I drive?"}))
        translated = mp.search(USER, "我开什么车？", record_access=False)
        job = {"semantic_query": "What is my job?", "expand_depth": 0}
        stub.reply(json.dumps(job | {"other_language_query": "我是做什么工作的？"}))
        in_english = mp.search(USER, "What is my job?", record_access=False)
        embedded = mp._recent_vectors  # type: ignore[attr-defined]
        searched = [
            embedded.asked(USER, query_text(q))
            for q in ("What car do I drive?", "我是做什么工作的？")
        ]
    assert [r for r in untranslated if r.layer == "direct"] == []
    assert [r.text for r in translated if r.layer == "direct"][:1] == [told[3]]
    assert [r.text for r in in_english if r.layer == "direct"][:1] == [told[0]]
    assert searched == [True, False]  # the translation embedded only where it was searched


def test_the_llm_planner_rests_after_an_outage_not_after_a_bad_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through an outage a search is planned by the rules at once instead of waiting on
    the endpoint again; a bad answer is only that search's loss."""
    monkeypatch.setattr(planner_module, "REST_AFTER_OUTAGE", REST_AFTER_OUTAGE)  # the real one
    now = [0.0]
    plan = json.dumps({"semantic_query": "爵士乐", "expand_depth": 0})
    with OpenAIStub() as stub:
        client = LLMClient(stub.base_url, "planner").with_budget(timeout=120)
        planner = LLMQueryPlanner(client, clock=lambda: now[0])
        stub.reply("not json")
        stub.reply(plan)
        after_bad = [planner.plan("我喜欢什么音乐", "auto", 1) for _ in range(2)]
        stub.fail(503)
        stub.reply(plan)
        during = [planner.plan("我喜欢什么音乐", "auto", 1) for _ in range(2)]
        asked_during = stub.chat_requests()
        now[0] += REST_AFTER_OUTAGE - 1
        still = planner.plan("我喜欢什么音乐", "auto", 1)
        now[0] += 2
        after = planner.plan("我喜欢什么音乐", "auto", 1)
    assert [p.reason for p in after_bad] == ["no cue", "llm planner"]
    assert [p.reason for p in during] == ["no cue", "no cue"]
    assert asked_during == 3  # the bad answer, its successor, the 503: none while resting
    assert still.reason == "no cue" and after.reason == "llm planner"
    assert stub.chat_requests() == 4


def test_a_search_waits_for_a_silent_llm_only_the_planners_budget(
    tmp_path: Path, embedder: Embedder
) -> None:
    """An endpoint that accepts connections and never answers (an overloaded server, a
    dropped route) held every planned search for 91 s: three tries of the extraction
    client's 30 s timeout. The planner asks once within its own budget, then rests; a
    search that finds something never asks."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):  # closed at the end of the test
            while True:
                accepted.append(silent.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        llm_base_url=f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
        retrieval={"planner_timeout": 0.2},
        _env_file=None,
    )
    try:
        with MemoryPlatform(settings, embedder=embedder) as mp:
            mp.create_memory(USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
            assert mp.wait_for_indexing(USER)
            found = mp.search(USER, "我喜欢什么音乐？", record_access=False)
            unasked = len(accepted)
            none = [mp.search(USER, f"明天天气怎么样 {i}", record_access=False) for i in range(3)]
            again = mp.search(USER, "我喜欢什么音乐？", record_access=False)
    finally:
        silent.close()
        for conn in accepted:
            conn.close()
    assert [r.text for r in found][:1] == [r.text for r in again][:1] == ["我 喜欢 爵士乐"]
    assert unasked == 0 and none == [[], [], []]
    assert len(accepted) == 1  # one request, not retried; the later searches asked nobody


def test_the_question_as_asked_comes_before_the_planners_rewrite(
    tmp_path, embedder: Embedder
) -> None:
    """Relevance and its floor were calibrated on questions as people ask them: what the
    question finds as asked is what the search returns, and only a question that finds
    nothing is searched as the planner rewrote it (a rewrite that misses finds nothing)."""
    with OpenAIStub() as stub, _planned(stub, tmp_path, embedder) as mp:
        jazz = mp.create_memory(
            USER, subject="我", memory_type="观点", topic="喜欢", object="爵士乐"
        )
        assert mp.wait_for_indexing(USER)
        stub.reply(json.dumps({"semantic_query": "明天 天气 预报", "expand_depth": 0}))
        as_asked = mp.search(USER, "我喜欢什么音乐？", record_access=False)
        missed = mp.search(USER, "那件事呢", record_access=False)  # takes the weather rewrite
        stub.reply(json.dumps({"semantic_query": "喜欢 爵士乐", "expand_depth": 0}))
        rewritten = mp.search(USER, "那件事呢", record_access=False)
    assert [r.id for r in as_asked if r.layer == "direct"][:1] == [jazz]
    assert [r for r in missed if r.layer == "direct"] == []
    assert [r.id for r in rewritten if r.layer == "direct"][:1] == [jazz]
    assert stub.chat_requests() == 2


def test_the_llm_planner_can_be_turned_off(tmp_path, embedder: Embedder) -> None:
    """An LLM configured for extraction need not be asked at every search."""
    with OpenAIStub() as stub:
        settings = Settings(
            sqlite_path=tmp_path / "m.db",
            llm_base_url=stub.base_url,
            retrieval={"llm_planner": False},
            _env_file=None,
        )
        with MemoryPlatform(settings, embedder=embedder) as mp:
            mp.create_memory(USER, subject="我", memory_type="事实", topic="心情", object="不好")
            mp.wait_for_indexing(USER)
            results = mp.search(USER, "我今天心情怎么样")
            assert mp.llm is not None  # still there for extraction
    assert [r.text for r in results] == ["我 心情 不好"]
    assert stub.chat_requests() == 0


def test_a_type_the_llm_planner_guesses_does_not_narrow_the_search(
    tmp_path, embedder: Embedder
) -> None:
    """An LLM asked to plan may still name memory types ("my opinion" -> 观点, "what car"
    -> 事实). Taken as a filter, a guess shut out every episode (the turns of a chat have
    no type) and every memory told under another type: both searches below found nothing.
    Only the caller's ``memory_types`` filters, and it is refused with episode ids."""
    with OpenAIStub() as stub, _planned(stub, tmp_path, embedder) as mp:
        [note] = mp.add_episodes(USER, [{"text": "I think jazz is the best music"}])
        mp.create_memory(USER, subject="我", memory_type="事件", topic="买车", object="蓝色丰田")
        mp.wait_for_indexing(USER)
        stub.reply(json.dumps({"semantic_query": "opinion of jazz", "memory_types": ["观点"]}))
        said = mp.search(USER, "what do I think of jazz?", record_access=False)
        stub.reply(json.dumps({"semantic_query": "我买了什么车", "memory_types": ["事实"]}))
        told = mp.search(USER, "我买了什么车？", record_access=False)
        stub.reply(json.dumps({"semantic_query": "opinion of jazz", "memory_types": ["观点"]}))
        within = mp.search(USER, "what do I think of jazz?", episode_ids=[note])
        typed = mp.search(USER, "jazz", mode="fast", memory_types=["事实"], record_access=False)
        with pytest.raises(InvalidInputError, match="memory_types"):
            mp.search(USER, "jazz", memory_types=["观点"], episode_ids=[note])
    assert [r.id for r in said if r.layer == "direct"][:1] == [note]
    assert [r.text for r in told if r.layer == "direct"][:1] == ["我 买车 蓝色丰田"]
    assert [r.id for r in within] == [note]
    assert typed == []  # the caller's type does filter: no fact, and episodes have none


_FILLER_TOPICS = [
    "季度报告",
    "牙医预约",
    "房租发票",
    "Python课程",
    "跑步计划",
    "猫粮订单",
    "车险续保",
    "会议纪要",
]


def test_a_search_among_many_given_episodes_reads_only_what_either_channel_would_find(
    tmp_path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Among more given episodes than the channels' two pools, only the nearest by cosine
    and those first by words are loaded and scored, and the answer is the one that
    scoring every given episode gives. The one saying the question's words is found
    behind 40 other turns that say them better, however deep the lexical read must go."""
    settings = Settings(sqlite_path=tmp_path / "m.db", _env_file=None)
    settings.retrieval.vector_candidates = 4  # pages of 4, pools of 4: 8 given or more are cut
    chat = [{"text": f"周末去杭州看西湖，第{i}次", "speaker": "我"} for i in range(40)]
    notes = [
        {"text": f"第{i}条笔记：{topic}"}
        for i, topic in enumerate(_FILLER_TOPICS * 4)  # 32 notes that match nothing asked
    ]
    query = "周末去杭州看西湖"
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.add_episodes(USER, chat)
        *fillers, lake = mp.add_episodes(USER, [*notes, {"text": "去年秋天和朋友在西湖边散步"}])
        mp.wait_for_indexing(USER)
        given = [*fillers, lake]
        assert mp._retriever._worded(USER, query, set(given), 4) == [lake]

        loaded: list[str] = []
        load = mp.store.load_candidates

        def counting(user, memory_ids, episode_ids, *args, **kwargs):  # type: ignore[no-untyped-def]
            loaded.extend(episode_ids)
            return load(user, memory_ids, episode_ids, *args, **kwargs)

        monkeypatch.setattr(mp.store, "load_candidates", counting)
        found = mp.search(USER, query, episode_ids=given, max_results=4, record_access=False)
        assert len(loaded) <= 3 * 4 < len(given)  # nearest, worded, not yet embedded
        monkeypatch.setattr(mp._retriever, "_closest", lambda _u, _q, missing, _v, _n, _k: missing)
        everyone = mp.search(USER, query, episode_ids=given, max_results=4, record_access=False)
    assert lake in {r.id for r in found}
    assert [(r.id, r.relevance) for r in found] == [(r.id, r.relevance) for r in everyone]


def test_each_channel_hands_on_at_least_as_many_candidates_as_the_caller_asks_for(
    tmp_path, embedder: Embedder
) -> None:
    """A page of results is filled from the channels' pools, so a pool smaller than the
    page would cut it short: with pools of 4, a search asking for 20 of 30 turns that all
    say the question's words gets 20, not the at most 8 two pools of 4 hold."""
    settings = Settings(sqlite_path=tmp_path / "m.db", _env_file=None)
    settings.retrieval.vector_candidates = 4
    query = "周末去杭州看西湖"
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.add_episodes(USER, [{"text": f"{query}，第{i}次", "speaker": "我"} for i in range(30)])
        mp.wait_for_indexing(USER)
        page = mp.search(USER, query, max_results=20, expand_depth=0, record_access=False)
        first = mp.search(USER, query, max_results=3, expand_depth=0, record_access=False)
    assert [r.layer for r in page] == ["direct"] * 20
    assert [r.id for r in first] == [r.id for r in page[:3]]


def test_expired_episodes_take_no_place_among_those_a_restricted_search_reads(
    tmp_path, embedder: Embedder
) -> None:
    """Twenty given episodes that expired (not purged yet) say the question's words best:
    they would fill both channels' places among the given, and no search shows them. The
    one live episode that matches is read and found all the same."""
    settings = Settings(sqlite_path=tmp_path / "m.db", _env_file=None)
    settings.retrieval.vector_candidates = 4  # pages of 4, pools of 4: 8 given or more are cut
    query = "周末去杭州看西湖"
    past = datetime.now(UTC) - timedelta(minutes=1)
    chat = [{"text": f"{query}，第{i}次", "speaker": "我"} for i in range(40)]
    gone = [{"text": f"{query}，草稿{i}", "expires_at": past} for i in range(20)]
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.add_episodes(USER, chat)
        *expired, lake = mp.add_episodes(USER, [*gone, {"text": "去年秋天和朋友在西湖边散步"}])
        mp.wait_for_indexing(USER)
        assert mp.store.expired_episode_ids(USER, datetime.now(UTC)) == sorted(expired)
        found = mp.search(
            USER, query, episode_ids=[*expired, lake], max_results=4, record_access=False
        )
    assert [r.id for r in found] == [lake]


def test_recency_and_access_scale() -> None:
    rates = {"event": 0.05, "relation": 0.005}
    assert recency(NOW, NOW, "event", rates) == pytest.approx(1.0)
    assert recency(NOW - timedelta(days=10), NOW, "event", rates) == pytest.approx(0.6065, abs=1e-3)
    assert recency(NOW - timedelta(days=10), NOW, "relation", rates) > 0.95
    assert access_frequency(0) == 0 and access_frequency(100) == 1 and access_frequency(1000) == 1
    assert 0 < access_frequency(3) < access_frequency(10) < 1


_UNIT = st.floats(min_value=0.0, max_value=1.0)


@settings(deadline=None)  # no per-example time limit: a busy CI machine must not fail it
@given(relevance=_UNIT, importance=_UNIT, recency=_UNIT, access=_UNIT)
def test_use_moves_a_score_by_a_few_percent_at_most(
    relevance: float, importance: float, recency: float, access: float
) -> None:
    """Issue 13: use may order comparably relevant results, never outrank relevance. Used
    or not, an item that matches nothing scores nothing, and the most used item gains at
    most access_weight / vector_weight (5%) over the same item never used."""
    weights = RetrievalSettings()
    parts = {"importance": importance, "recency": recency, "graph": 1.0}
    unused = weighted_score(ScoreComponents(semantic=relevance, **parts), weights)
    used = weighted_score(ScoreComponents(semantic=relevance, access=access, **parts), weights)
    assert weighted_score(ScoreComponents(access=access, **parts), weights) == 0.0
    bound = 1 + weights.access_weight / weights.vector_weight
    assert unused <= used <= unused * bound + 1e-9


def test_each_hop_from_a_match_lowers_a_score() -> None:
    """A graph neighbour ranks below a direct match as relevant as it, and two hops below
    one: by 1 - graph_distance_weight * (1 - 1 / (1 + hops))."""
    weights = RetrievalSettings()
    scores = [
        weighted_score(ScoreComponents(semantic=0.8, graph=graph_proximity(hops)), weights)
        for hops in (0, 1, 2)
    ]
    assert scores[0] > scores[1] > scores[2] > 0
    gamma = weights.graph_distance_weight
    assert scores[1] == pytest.approx(scores[0] * (1 - gamma / 2))
    assert scores[2] == pytest.approx(scores[0] * (1 - gamma * 2 / 3))


def test_format_context_names_a_memorys_type_in_the_language_it_is_written_in() -> None:
    def typed(text: str) -> str:
        result = SearchResult(
            id="a", kind="memory", text=text, score=1, layer="direct", memory_type="事实"
        )
        return format_context([result])

    assert 'type="fact"' in typed("user likes tea")
    assert 'type="事实"' in typed("我 喜欢 咖啡")


def test_format_context_escapes_and_layers() -> None:
    direct = SearchResult(
        id="a",
        kind="memory",
        text='I said <b>"hi"</b> & left',
        score=1,
        layer="direct",
        time="2025-11-05",
    )
    related = SearchResult(
        id="b",
        kind="episode",
        text="next turn",
        score=0.5,
        layer="related",
        graph_distance=1,
        speaker="Ann & Bob",
        path=[
            PathStep(from_id="a", to_id="b", relation="SHARED_NODE", direction="both", via="<hub>")
        ],
    )
    text = format_context([direct, related])
    assert (
        "&lt;b&gt;&quot;hi&quot;&lt;/b&gt; &amp; left" in text
        or '&lt;b&gt;"hi"&lt;/b&gt; &amp; left' in text
    )
    assert "<speaker>Ann &amp; Bob</speaker>" in text and "<via>&lt;hub&gt;</via>" in text
    assert text.index("<direct_matches>") < text.index("<related_context>")
    two = format_context([direct, direct.model_copy(update={"id": "c"}), related])
    assert [line.split('"')[1] for line in two.splitlines() if "<memory index=" in line] == [
        "1", "2", "3",
    ]  # fmt: skip
    assert '<memory index="3" kind="episode" distance="1" relation="shares">' in two
    assert (
        format_context([])
        == f"<memory_context>\n  <no_relevant_memory>{NOTHING_RELEVANT}</no_relevant_memory>\n"
        "</memory_context>"
    )


def test_format_context_shows_no_neighbours_of_a_match_it_leaves_out() -> None:
    """A sensitive match left out leaves its neighbour related to nothing shown: the block
    says nothing relevant is remembered rather than list the neighbour as context."""
    secret = SearchResult(
        id="a", kind="memory", text="I take insulin", score=1, layer="direct", sensitive=True
    )
    beside = SearchResult(
        id="b", kind="episode", text="at breakfast", score=0.5, layer="related", graph_distance=1
    )

    hidden = format_context([secret, beside])
    shown = format_context([secret, beside], include_sensitive=True)

    assert NOTHING_RELEVANT in hidden and "at breakfast" not in hidden
    assert "I take insulin" in shown and "<related_context>" in shown and "at breakfast" in shown


def test_search_records_accesses(platform: MemoryPlatform) -> None:
    memory_id = platform.create_memory(
        USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐"
    )
    platform.wait_for_indexing(USER)
    platform.search(USER, "爵士乐")
    platform.search(USER, "爵士乐", record_access=False)
    platform._retriever.close()  # flush the background access writes
    memory = platform.get_memory(USER, memory_id).memory
    assert memory.access_count == 1 and memory.last_accessed is not None


def test_a_long_pasted_query_is_embedded_from_its_last_part(platform: MemoryPlatform) -> None:
    """A transcript pasted as the query is embedded from its last QUERY_EMBED_CHARS only
    (seconds of embedding otherwise): every result's cosine is the one the tail alone
    gives, while the lexical channel still reads the whole text."""
    platform.create_memory(USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
    platform.create_memory(USER, subject="我", memory_type="事件", topic="去", object="成都")
    platform.wait_for_indexing(USER)
    tail = "我最近很喜欢听爵士乐。" * 20
    long = "今天天气不错，我们聊了很多别的事情。" * 800 + tail
    assert len(long) > 10 * QUERY_EMBED_CHARS

    whole = platform.search(USER, long, record_access=False, min_relevance=0)
    clipped = platform.search(USER, long[-QUERY_EMBED_CHARS:], record_access=False, min_relevance=0)

    cosine = {r.id: r.components.similarity for r in clipped}
    assert whole and all(r.id in cosine for r in whole)
    assert all(r.components.similarity == cosine[r.id] for r in whole)
    assert clip_query(long) == long[-QUERY_EMBED_CHARS:]
    assert clip_query(long, keep="start") == long[:QUERY_EMBED_CHARS]
    assert clip_query(tail) == tail  # a query of ordinary length is embedded whole


def test_a_query_is_embedded_without_the_speakers_wo(platform: MemoryPlatform) -> None:
    """我 says who asks: the query's vector is the same without it, so two short texts
    that share only 我 do not look alike (the matched words still count it)."""
    platform.create_memory(USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
    platform.create_memory(USER, subject="我", memory_type="观点", topic="讨厌", object="下雨天")
    platform.wait_for_indexing(USER)
    asked = platform.search(USER, "我喜欢什么音乐?", record_access=False, min_relevance=0)
    bare = platform.search(USER, "喜欢什么音乐?", record_access=False, min_relevance=0)
    cosine = {r.id: r.components.similarity for r in bare}
    assert asked and all(r.components.similarity == cosine[r.id] for r in asked)
    assert query_text("<Bart>: 我很开心\n<Assistant>: 太好了") == "很开心\n太好了"
    # nor its words of when, matched against when things happened
    assert query_text("What did I buy on May 7, 2023?") == "What did I buy on?"
    assert query_text("我昨天为什么很开心?") == "为什么很开心?"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": " "}, "query"),
        ({"query": "hi \ud800 there"}, "lone surrogate"),  # a JSON escape of half a pair
        ({"query": "x", "episode_ids": ["e\udfff"]}, "episode_ids"),
        ({"query": "x", "max_results": 0}, "max_results"),
        ({"query": "x", "max_results": None}, "max_results"),
        ({"query": "x", "max_results": "5"}, "max_results"),
        ({"query": "x", "max_results": 2.5}, "max_results"),
        ({"query": "x", "expand_depth": 5}, "expand_depth"),
        ({"query": "x", "expand_depth": "1"}, "expand_depth"),
        ({"query": "x", "min_relevance": 2}, "min_relevance"),
        ({"query": "x", "min_relevance": float("nan")}, "min_relevance"),
        ({"query": "x", "min_relevance": "high"}, "min_relevance"),
        ({"query": "x", "memory_types": ["feelings"]}, "memory_types"),
        ({"query": "x", "time_range": {"start": "sometime"}}, "time_range.start"),
        ({"query": "x", "time_range": {"start": "2025-11-05", "end": "2025-11-01"}}, "before end"),
        ({"query": "x", "relation_types": ["LOVES"]}, "relation_types"),
    ],
)
def test_bad_search_input_is_a_clear_error(
    platform: MemoryPlatform, kwargs: dict, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        platform.search(USER, **kwargs)


def test_search_memories_tool(platform: MemoryPlatform) -> None:
    platform.create_memory(
        USER,
        subject="我",
        memory_type="事件",
        topic="跑步",
        object="五公里",
        attributes={"时间": "昨天"},
        reference_time=NOW,
    )
    platform.wait_for_indexing(USER)

    ok = platform.execute_tool(
        USER,
        "search_memories",
        {"query": "跑步", "memory_types": ["事件"], "time_range": {"start": "上周一"}},
        NOW,
    )
    bad = platform.execute_tool(USER, "search_memories", {"query": "跑步", "expand_depth": 9}, NOW)
    wrong_time = platform.execute_tool(
        USER, "search_memories", {"query": "跑步", "time_range": {"start": "long ago"}}, NOW
    )

    assert ok["success"] and ok["count"] == 1
    assert ok["results"][0]["text"] == "我 跑步 五公里（时间：2025-11-04）"
    # the calibrated relevance, for the model to weigh what it is shown
    assert platform.settings.retrieval.relevance_floor <= ok["results"][0]["relevance"] <= 1
    assert "<memory_context>" in ok["context"]
    assert bad["success"] is False and "'expand_depth'" in bad["error"]
    assert wrong_time["success"] is False and "time_range.start" in wrong_time["error"]
    # a year, or a season of one, is a range: from its start to its end
    # and so is a month of a year ("November 2025" was once November 20 of this year)
    for span, count in [("2025年", 1), ("2024", 0), ("2025年秋天", 1), ("summer 2025", 0),
                        ("November 2025", 1), ("2025年11月", 1), ("Nov, 2025", 1),
                        ("October 2025", 0)]:  # fmt: skip
        told = platform.execute_tool(
            USER, "search_memories", {"query": "跑步", "time_range": {"start": span, "end": span}}
        )
        assert told["success"] and told["count"] == count, span


def test_an_item_not_yet_indexed_is_judged_as_it_will_be_once_indexed(
    platform: MemoryPlatform,
) -> None:
    from memory_platform.models import Episode

    user = "fresh-writer"
    turn = Episode(user_id=user, text="We spent the weekend hiking around Lake Bled", speaker="Ana")
    platform.store.add_episodes([turn])  # straight to the store: the indexer is not told
    assert platform.store.pending_count() >= 1
    query = "Where did Ana go walking in the mountains?"
    before = platform.search(user, query, record_access=False, min_relevance=0)
    platform.wait_for_indexing(user)
    platform.clear_query_cache()
    after = platform.search(user, query, record_access=False, min_relevance=0)
    assert [r.id for r in before] == [r.id for r in after] == [turn.id]
    assert before[0].relevance == pytest.approx(after[0].relevance, abs=1e-4)
    assert before[0].components.similarity > 0  # the dense channel counted before indexing


def test_a_question_naming_a_day_prefers_what_was_said_that_day(platform: MemoryPlatform) -> None:
    user = "diary"
    first, second = platform.add_episodes(
        user,
        [
            {"text": "I painted a sunset with my kids", "speaker": "Mel",
             "timestamp": "2023-07-08T14:00:00Z"},
            {"text": "I painted a sunset over the lake", "speaker": "Mel",
             "timestamp": "2023-10-13T14:00:00Z"},
        ],
    )  # fmt: skip
    platform.wait_for_indexing(user)
    dated = platform.search(user, "What did Mel paint on October 13, 2023?", record_access=False)
    assert [r.id for r in dated][:1] == [second]
    plain = platform.search(user, "What did Mel paint with her kids?", record_access=False)
    assert [r.id for r in plain][:1] == [first]
    july = platform.search(user, "What did Mel paint in July 2023?", record_access=False)
    assert [r.id for r in july][:1] == [first]
    other_day = platform.search(user, "What did Mel paint on July 8, 2023?", record_access=False)
    assert [r.id for r in other_day][:1] == [first]
    # the date orders matches; it does not make anything more relevant
    assert {r.id: r.relevance for r in dated} == pytest.approx(
        {r.id: r.relevance for r in other_day}, abs=1e-6
    )
    # a range is one span, and the numbers that name it are no words the text must say:
    # "October 10" left in the question once made nothing relevant enough to return
    ranged = platform.search(
        user, "What did Mel paint between October 10 and October 15, 2023?", record_access=False
    )
    assert [r.id for r in ranged][:1] == [second]
    # a day without its year is that day of any year, and not asked of the text either
    yearless = platform.search(user, "What did Mel paint on October 13?", record_access=False)
    assert [r.id for r in yearless][:1] == [second]
    # a month without its year is that month of any year; the other paintings still show
    for question, month in [("What did Mel paint in October?", second),
                            ("What did Mel paint in July?", first),
                            ("Mel 7月画了什么?", first)]:  # fmt: skip
        found = [r.id for r in platform.search(user, question, record_access=False)]
        assert found[:1] == [month] and set(found) == {first, second}, question


def test_a_question_saying_when_relative_to_now_prefers_what_was_said_then(
    platform: MemoryPlatform,
) -> None:
    """ "Last week", 上周, 两周前 are read against the search's reference time: of the same
    kind of thing said on several days, what was said in the time asked about comes
    first, though something said since is as relevant and more recent."""
    user = "gym-diary"
    asked_at = datetime(2025, 11, 5, 18, 0, tzinfo=UTC)  # a Wednesday
    said = {
        "I went to the gym and did a long swim": 1,
        "I went to the gym and lifted weights": 6,  # last week
        "和安娜在意大利餐厅吃了晚饭": 1,
        "和安娜在寿司店吃了晚饭": 6,  # 上周
        "和安娜在路边摊吃了晚饭": 12,  # 两周前
    }
    swim, weights, italian, sushi, stall = platform.add_episodes(
        user,
        [
            {"text": text, "speaker": "me", "timestamp": asked_at - timedelta(days=days)}
            for text, days in said.items()
        ],
    )
    platform.wait_for_indexing(user)

    def ranked(question: str, at: datetime = asked_at) -> list[str]:
        results = platform.search(user, question, reference_time=at, record_access=False)
        return [r.id for r in sorted(results, key=lambda r: -r.score)]

    def first_of(question: str, ids: set[str], at: datetime = asked_at) -> str:
        return next(i for i in ranked(question, at) if i in ids)

    gym, dinners = {swim, weights}, {italian, sushi, stall}
    assert first_of("What did I do at the gym?", gym) == swim  # the latest, asked of no time
    assert first_of("What did I do at the gym last week?", gym) == weights
    assert first_of("我和安娜在哪吃的晚饭?", dinners) != stall
    assert first_of("我两周前和安娜在哪吃的晚饭?", dinners) == stall
    assert first_of("我上周和安娜在哪吃的晚饭?", dinners) == sushi
    # asked nine days later, last week is the swim's
    assert (
        first_of("What did I do at the gym last week?", gym, asked_at + timedelta(days=9)) == swim
    )
    # the time orders the matches; it makes nothing more relevant
    relevance = {
        r.id: r.relevance
        for r in platform.search(user, "我两周前和安娜在哪吃的晚饭?", record_access=False)
    }
    for r in platform.search(
        user, "我两周前和安娜在哪吃的晚饭?", reference_time=asked_at, record_access=False
    ):
        assert r.relevance == pytest.approx(relevance[r.id], abs=1e-6)
    # the tool call an agent makes: its reference time is the message's
    told = platform.execute_tool(
        user, "search_memories", {"query": "我两周前和安娜在哪吃的晚饭?"}, asked_at
    )
    assert told["success"]
    assert next(r["id"] for r in told["results"] if r["id"] in dinners) == stall


def test_a_question_saying_a_year_or_a_season_prefers_what_was_said_then(
    platform: MemoryPlatform,
) -> None:
    """ "In 2022", "summer 2021", 2022年冬天, 23年夏天: of the same thing said in several
    years, what was said in the year or season asked about comes first."""
    user = "years-diary"
    said = ["2021-07-10", "2022-01-15", "2023-04-20"]
    hikes = platform.add_episodes(
        user,
        [
            {"text": "I went hiking in the mountains with Tom", "speaker": "me",
             "timestamp": f"{day}T10:00:00Z"} for day in said
        ] + [
            {"text": "我和小红去海边玩了", "speaker": "我", "timestamp": f"{day}T10:00:00Z"}
            for day in ["2021-07-12", "2022-12-20", "2023-08-02"]
        ],
    )  # fmt: skip
    platform.wait_for_indexing(user)

    def first(question: str) -> int:
        found = platform.search(user, question, record_access=False)
        return hikes.index(max(found, key=lambda r: r.score).id)

    assert first("Where did I go hiking in 2022?") == 1
    assert first("Where did I go hiking in summer 2021?") == 0
    assert first("Where did I go hiking during 2023?") == 2
    assert first("Where did I go hiking in the spring of 2023?") == 2
    assert first("我2022年冬天和小红去哪玩了?") == 4
    assert first("我23年夏天和小红去哪玩了?") == 5


def test_a_question_saying_when_finds_what_it_would_find_without(
    platform: MemoryPlatform,
) -> None:
    """The words of when are matched against when things happened, not embedded with the
    question: "What did I buy on May 7, 2023?" was embedded far from "I bought a lamp at
    IKEA" (relevance 0.001, under the floor: nothing found), though "What did I buy?"
    finds it. Dates written in numbers are read as dates, and a Chinese question of
    English memory is glossed without its date."""
    user = "shopper"
    lamp, rug = platform.add_episodes(
        user,
        [
            {"text": "I bought a lamp at IKEA", "speaker": "me",
             "timestamp": "2023-05-07T10:00:00Z"},
            {"text": "I bought a rug at IKEA", "speaker": "me",
             "timestamp": "2023-07-05T10:00:00Z"},
        ],
    )  # fmt: skip
    platform.wait_for_indexing(user)
    asked_at = datetime(2023, 7, 12, 9, 0, tzinfo=UTC)
    floor = platform.settings.retrieval.relevance_floor
    plain = platform.search(user, "What did I buy?", reference_time=asked_at, record_access=False)
    assert {r.id for r in plain if r.layer == "direct"} == {lamp, rug}
    for question, first in [
        ("What did I buy on May 7, 2023?", lamp),
        ("What did I buy on 2023/7/5?", rug),
        ("What did I buy on 5/7/2023?", None),  # May 7 or 5 July: both
        ("What did I buy in spring 2023?", lamp),
        ("What did I buy last week?", rug),
        ("我2023年7月5日买了什么?", rug),
        ("我上周买了什么?", rug),
    ]:
        found = platform.search(user, question, reference_time=asked_at, record_access=False)
        direct = [r for r in found if r.layer == "direct"]
        assert {r.id for r in direct} == {lamp, rug}, question
        assert all(r.relevance >= floor for r in direct)
        if first is not None:
            assert max(direct, key=lambda r: r.score).id == first, question


def test_a_question_naming_a_speaker_favours_what_that_speaker_said(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_platform.retrieval import retriever

    user = "two-friends"
    hers, about_her = platform.add_episodes(
        user,
        [
            {"text": "I adopted a puppy from the shelter!", "speaker": "Caroline",
             "session_id": "s1", "timestamp": "2023-05-08T13:00:00Z"},
            {"text": "Caroline adopted a puppy from the shelter.", "speaker": "Melanie",
             "session_id": "s2", "timestamp": "2023-05-09T13:00:00Z"},
        ],
    )  # fmt: skip
    platform.wait_for_indexing(user)

    def strengths() -> dict[str, tuple[float, float]]:
        found = platform.search(user, "What did Caroline adopt?", record_access=False)
        return {r.id: (r.components.semantic, r.components.mention) for r in found}

    with_bonus = strengths()
    bonus = retriever._MENTION
    monkeypatch.setattr(retriever, "_MENTION", 0.0)
    without = strengths()

    assert with_bonus[hers][1] == 1.0 and with_bonus[about_her][1] == 0.0
    assert bonus > 0
    assert with_bonus[hers][0] - without[hers][0] == pytest.approx(bonus, abs=1e-6)
    assert with_bonus[about_her][0] == pytest.approx(without[about_her][0], abs=1e-9)
    assert next(iter(with_bonus)) == hers


def test_a_reply_takes_a_share_of_the_turn_it_answers(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer often sits in the reply to the turn that matches the question."""
    from memory_platform.retrieval import retriever

    user = "concert-friends"
    asked, reply, later = platform.add_episodes(
        user,
        [
            {"text": "Did you go to the jazz concert in the park on Saturday?",
             "speaker": "Melanie", "session_id": "s1", "timestamp": "2023-05-08T13:00:00Z"},
            {"text": "Yes! It was amazing, the band played until midnight.",
             "speaker": "Caroline", "session_id": "s1", "timestamp": "2023-05-08T13:01:00Z"},
            {"text": "I bought new running shoes yesterday.",
             "speaker": "Melanie", "session_id": "s2", "timestamp": "2023-06-01T09:00:00Z"},
        ],
    )  # fmt: skip
    platform.wait_for_indexing(user)

    def components() -> dict[str, tuple[float, float]]:
        found = platform.search(
            user, "the jazz concert in the park", record_access=False, min_relevance=0.0
        )
        return {r.id: (r.components.semantic, r.components.context) for r in found}

    with_share = components()
    share = retriever._CONTEXT
    monkeypatch.setattr(retriever, "_CONTEXT", 0.0)
    without = components()

    assert share > 0
    strength, context = with_share[reply]
    assert context > 0  # the question before it matched
    assert strength - without[reply][0] == pytest.approx(share * context, abs=1e-6)
    assert with_share[reply][0] > with_share.get(later, (0.0, 0.0))[0]
    assert asked in with_share


def test_on_sqlite_the_lexical_lookup_runs_beside_the_scan_and_finds_the_same(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite answers a search's lexical lookup on a thread of its own while the vectors
    are scanned (for a big user each takes tens of milliseconds); what the search returns
    is what it returns with the lookup done inline, and a failing lookup fails the search."""
    platform.create_memory(USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
    platform.create_memory(USER, subject="我", memory_type="事件", topic="去", object="成都")
    platform.add_episode(USER, "Caroline went hiking near Chengdu last weekend.", speaker="Ann")
    platform.wait_for_indexing(USER)
    store = platform.store
    lookup = store.lexical_search
    threads: list[str] = []

    def spy(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return lookup(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "lexical_search", spy)
    query = "我喜欢爵士乐吗? Chengdu hiking"
    beside = platform.search(USER, query, record_access=False, min_relevance=0)
    assert threads and all(name.startswith("memory-search") for name in threads)

    threads.clear()
    monkeypatch.setattr(store, "parallel_reads", False)
    inline = platform.search(USER, query, record_access=False, min_relevance=0)
    assert threads == [threading.current_thread().name]
    assert len(beside) >= 3
    assert [(r.id, r.relevance) for r in beside] == [(r.id, r.relevance) for r in inline]
    # the scores agree up to the recency of a second search a moment later
    assert [r.score for r in beside] == pytest.approx([r.score for r in inline], rel=1e-6)

    def broken(*_args: object, **_kwargs: object) -> object:
        raise StorageError("disk I/O error")

    monkeypatch.undo()
    monkeypatch.setattr(store, "lexical_search", broken)
    with pytest.raises(StorageError, match="disk I/O"):
        platform.search(USER, query, record_access=False)


def test_a_users_first_search_loads_their_vectors_beside_the_query_embedding(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform.create_memory(USER, subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
    platform.wait_for_indexing(USER)
    store = platform.store
    store._cache.clear()  # type: ignore[attr-defined]  # as in a fresh process
    warm = store.warm_vectors
    threads: list[str] = []

    def spy(*args: object, **kwargs: object) -> None:
        threads.append(threading.current_thread().name)
        warm(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "warm_vectors", spy)
    first = platform.search(USER, "爵士乐", record_access=False)
    assert [r.text for r in first][:1] and "爵士乐" in first[0].text
    assert len(threads) == 1 and threads[0].startswith("memory-warm")  # its own thread
    platform.search(USER, "爵士乐 again", record_access=False)
    assert len(threads) == 1  # loaded: later searches add no thread beside the embedding


def test_seeds_name_each_candidate_once_and_mark_the_lexical_only_ones() -> None:
    # what a search loads after seeding (the embedded store's reads and search/seed.cypher
    # on Neo4j must agree on it): vector hits and topic/object fan-out are scored by the
    # vectors; a lexical hit neither found is loaded with its own cosine
    seeds = Seeds(
        vector={
            VectorKind.MEMORY: [VectorHit(ref_id="m1", score=0.9)],
            VectorKind.TOPIC: [VectorHit(ref_id="t1", score=0.8)],
            VectorKind.EPISODE: [VectorHit(ref_id="e1", score=0.7)],
        },
        node_memories={"t1": ["m2", "m1"]},
        lexical=[
            LexicalHit(kind=VectorKind.EPISODE, ref_id="e2", score=3.0),
            LexicalHit(kind=VectorKind.MEMORY, ref_id="m2", score=2.0),
            LexicalHit(kind=VectorKind.MEMORY, ref_id="m3", score=1.0),
            LexicalHit(kind=VectorKind.EPISODE, ref_id="e1", score=0.5),
        ],
    )
    memories, episodes, unscored = seeds.candidate_ids()
    assert memories == ["m1", "m2", "m3"]
    assert episodes == ["e1", "e2"]
    assert unscored == ["e2", "m3"]


def test_turns_beside_are_the_matches_neighbours_that_are_no_match() -> None:
    """Each turn beside a match names it and whether it follows (its reply) or precedes
    it; a match is never another's neighbour, and a turn is named once."""
    chain = {"t1": "t2", "t2": "t3", "t3": "t4", "t4": "t5"}  # one session, t1 first

    assert turns_beside(["t2"], chain) == {"t3": ("t2", "out"), "t1": ("t2", "in")}
    assert turns_beside(["t2", "t3"], chain) == {"t4": ("t3", "out"), "t1": ("t2", "in")}
    assert turns_beside(["t4", "t2"], chain) == {
        "t5": ("t4", "out"), "t3": ("t4", "in"), "t1": ("t2", "in")
    }  # fmt: skip
    assert turns_beside([], chain) == {}  # nothing matched, nothing beside

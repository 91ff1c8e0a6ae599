"""Hybrid retrieval (seed 000 §5.2, §12.3; seed 004): seed, expand, score, layer.

1. Seeds: vector search over memory, topic, object and episode embeddings plus lexical
   search (Chinese words, character bigrams and characters), union of the candidates:
   each channel's first ``retrieval.vector_candidates``, never fewer than the results
   asked for (:meth:`HybridRetriever._pool`), and at most :data:`_NODE_POOL` topic and
   object nodes, each bringing up to :data:`_NODE_FANOUT` of its memories.
2. Strength and relevance (``_relate``): the two channels fused with equal say for
   ranking; a calibrated relevance (:mod:`.relevance`) for the floor. Candidates below
   ``retrieval.relevance_floor`` are not matches: with none left, nothing is returned,
   not even graph neighbours.
3. Expansion: breadth-first from the best direct matches over memory links and shared
   nodes (hub-capped, never through the user's own subject node), restricted to causal
   links for causal questions. A turn next to a matching turn in its session (the ``NEXT``
   chain) is shown as that match's related neighbour even below the floor, ranked among
   the matches by its score (:func:`_context_turns`): the reply to a matching question is
   often the answer, and it rarely repeats the question's words.
4. Scoring (:mod:`.scoring`): strength scaled by importance, recency and use, every
   component kept on the result. A lower-ranked match that a better one reaches through
   an explicit link is shown as its graph-related neighbour, which is what the two-layer
   prompt of seed 004 wants. Matches told in both Chinese and English are taken from
   whichever language's next is the more relevant (:func:`_across_languages`).
5. The rules plan (:func:`.planner.plan_heuristically`). With an LLM planner configured, a
   question that finds no match as asked is then planned by the LLM and searched as it
   rewrote it, then as translated into the other of Chinese and English, for memories
   told in that language. The question as asked comes first: relevance and its floor
   were calibrated on questions as people ask them, not on a model's rewrites, and a
   search that finds something waits for no LLM. A Chinese question that still finds
   nothing, and that no LLM translated, is searched once more glossed word by word into
   English (:mod:`.gloss`, ``retrieval.english_gloss``), and an English one into Chinese
   (``retrieval.chinese_gloss``). A question whose every match is told in the other
   language is asked in it too (translated, else glossed), and the search with the more
   relevant best match is kept: what it found was judged across languages, where
   relevance reads less.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..builder import (
    SELF_SUBJECT,
    about_owner,
    canonical_subject,
    episode_time_text,
    memory_time_text,
    subject_node_id,
)
from ..config import RetrievalSettings
from ..embeddings import Embedder, query_text
from ..errors import InvalidInputError
from ..heap import release_freed_memory
from ..models import (
    EdgeType,
    Episode,
    ExpansionHit,
    LexicalHit,
    LinkType,
    Memory,
    MemoryStatus,
    MemoryType,
    PathStep,
    VectorKind,
    valid_unicode,
)
from ..recent_vectors import RecentVectors
from ..store import SHARED_NODE, GraphStore
from ..store.base import SeedQuery, episode_document, memory_document, relation_filter, spoken_line
from ..textutil import has_cjk, word_tokens
from ..timeparse import (
    named_dates,
    relative_spans,
    without_dates,
    without_time_words,
    year_spans,
)
from .gloss import chinese_gloss, english_gloss
from .names import asks_about_owner, other_script_forms, shared_in_other_script
from .people import MemoryPeople, name_evidence
from .planner import LLMQueryPlanner, QueryPlan, plan_heuristically
from .relevance import (
    BACKGROUND,
    Background,
    RelevanceModel,
    matched_words,
    query_language,
    relevance_model_for,
    shipped_background,
)
from .results import ScoreComponents, SearchResult
from .scoring import access_frequency, graph_proximity, recency, weighted_score

__all__ = ["MAX_WITHIN", "HybridRetriever", "TimeWindow", "turns_beside"]

log = logging.getLogger(__name__)

Mode = Literal["fast", "deep", "auto"]
Language = Literal["en", "zh"]
_Searched = Callable[[QueryPlan, str, Language | None], list[SearchResult] | None]
"""One search of a question as planned, the text whose names count, and the language it
was glossed into (see :meth:`HybridRetriever.search`)."""
_KINDS = frozenset({"memory", "episode"})
"""What a search may return: memories (hubs) and episodes."""
_DATED_BONUS = 0.25
"""Strength added to a match dated within a day or month the question names."""
_EMBED_NOW = 16
"""At most this many not-yet-indexed candidates are embedded during one search."""
MAX_WITHIN = 100_000
"""Most episodes a search may be restricted to (each one's cosine is read; the nearest and
those that say the query's words are loaded and scored)."""
_NODE_FANOUT = 20
"""At most this many memories are seeded through one matching topic or object node."""
_NODE_POOL = 50
"""At most this many topic and object nodes a search seeds from (fewer where the pool is
smaller). Each is a door to up to :data:`_NODE_FANOUT` memories, so they need no pool as
deep as the items themselves: at 100, a search of 100,000 memories took twice the extra
time of the deeper pool for no measured gain (``benchmarks/results/candidate_pool.md``)."""
_EXPAND_FROM = 3
"""Direct matches expanded from, best first."""
_CONTEXT = 0.5
"""Share of an adjacent turn's strength an episode takes: evidence often sits in the
reply to the turn that matches, or in the question before the answer that matches."""
_MENTION = 0.4
"""Strength added to a turn whose speaker the question names: "What did Caroline say
about ..." asks about Caroline's turns. It orders the matches; relevance is unchanged.

Both were chosen together on LoCoMo dev by leave-one-conversation-out: each conversation
measured with the weights best on the other four (``benchmarks/micro/fusion_weights.py``,
``benchmarks/results/fusion_weights.md``). The plateau is broad (context 0.3-0.6 with
mention 0.3-0.5 all within 0.004) and 0.5 / 0.4 sits in its middle; MADial's memories have
neither sessions nor speakers."""


@dataclass(frozen=True)
class TimeWindow:
    """Half-open [start, end) filter on event time (or creation time)."""

    start: datetime | None = None
    end: datetime | None = None

    def contains(self, when: datetime | None) -> bool:
        if when is None:
            return False
        if self.start is not None and when < self.start:
            return False
        return not (self.end is not None and when >= self.end)


@dataclass
class _Candidate:
    kind: VectorKind
    id: str
    similarity: float = 0.0
    has_similarity: bool = False
    vector_rank: int | None = None
    lexical_rank: int | None = None
    memory: Memory | None = None
    episode: Episode | None = None
    next_id: str | None = None
    hit: ExpansionHit | None = None
    mention: float = 0.0
    lift: float = 0.0
    matched: int = 0
    unknown_names: bool = False
    context_turn: bool = False
    own: float = 0.0
    context: float = 0.0
    strength: float = 0.0
    relevance: float = 0.0
    asked_then: bool = False
    """Dated within the time the question asks about: as recent as can be, whatever now
    is (see :meth:`HybridRetriever._favour_named_dates`)."""

    def see(self, similarity: float) -> None:
        if not self.has_similarity or similarity > self.similarity:
            self.similarity = similarity
            self.has_similarity = True


def _about_owner(c: _Candidate, people: MemoryPeople | None = None) -> bool:
    """A memory whose subject is the user, a turn the user said, or, where the memory's
    ``people`` are given, a note about the owner (:meth:`.MemoryPeople.about_the_owner`)."""
    if c.memory is not None:
        return about_owner(c.memory.text)
    if c.episode is None:
        return False
    speaker = c.episode.speaker
    if speaker is not None and canonical_subject(speaker) == SELF_SUBJECT:
        return True
    return people is not None and people.about_the_owner(c.episode)


def _shares_owner_word(words: set[str], document: str, owner_words: Set[str]) -> bool:
    """Whether the question's words for the owner are among the item's already."""
    return bool(words & owner_words and words & owner_words & set(word_tokens(document)))


def _whole(value: object) -> bool:
    """Whether a count argument is a whole number (not a bool, a float or a string)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class _Visible:
    """Which candidates a search may show: type and time filters, and whether invalid
    (superseded, contradicted, archived) and sensitive items are wanted; episodes expired
    by ``now`` never."""

    types: Sequence[MemoryType] | None
    window: TimeWindow | None
    include_invalid: bool
    include_sensitive: bool
    now: datetime
    glossed_into: Language | None = None
    """The language a question was glossed into (:mod:`.gloss`): only what is told in it
    (an item holds Chinese or not), since the question as asked has judged the rest."""

    def admits(self, c: _Candidate) -> bool:
        item = c.memory if c.memory is not None else c.episode
        if item is None:
            return False  # deleted between seeding and loading
        if self.glossed_into is not None and has_cjk(item.text) != (self.glossed_into == "zh"):
            return False
        if c.episode is not None and (not c.episode.searchable or c.episode.expired(self.now)):
            return False  # kept and read, never matched; or gone
        if item.sensitive and not self.include_sensitive:
            return False
        if c.memory is not None:
            m = c.memory
            hidden = m.invalid_at is not None or m.status == MemoryStatus.ARCHIVED
            if hidden and not self.include_invalid:
                return False
            if self.types and m.memory_type not in self.types:
                return False
            return self.window is None or self.window.contains(m.event_time or m.created_at)
        assert c.episode is not None
        return not self.types and (self.window is None or self.window.contains(c.episode.timestamp))


@dataclass(frozen=True)
class _Request:
    """One search's inputs, validated and planned."""

    user_id: str
    query: str
    plan: QueryPlan
    vector: npt.NDArray[np.float32]
    lexical: Callable[[], list[LexicalHit]] | None
    kinds: set[VectorKind]
    want_episodes: bool
    visible: _Visible
    filters: list[LinkType | str] | None
    causes_only: bool
    max_results: int
    pool: int
    floor: float
    now: datetime
    within: frozenset[str] | None = None
    context_turns: bool = False
    """Whether turns next to a matching turn are shown as its neighbours (the search may
    expand and the caller did not restrict the relations followed)."""


def _allowed_episodes(
    episode_ids: Sequence[str] | None,
    kinds: set[VectorKind],
    memory_types: Sequence[MemoryType] | None,
) -> frozenset[str] | None:
    """The episodes a search is restricted to, checked: None for no restriction."""
    if episode_ids is None:
        return None
    if not isinstance(episode_ids, list | tuple | set | frozenset) or not all(
        isinstance(ref, str) and ref and valid_unicode(ref) for ref in episode_ids
    ):
        raise InvalidInputError("must be a list of episode ids", "episode_ids")
    if len(episode_ids) > MAX_WITHIN:
        raise InvalidInputError(f"at most {MAX_WITHIN} episodes", "episode_ids")
    if VectorKind.EPISODE not in kinds:
        raise InvalidInputError("a search among episodes must include kind 'episode'", "kinds")
    if memory_types:
        raise InvalidInputError(
            "episodes have no memory type: search them without one", "memory_types"
        )
    return frozenset(episode_ids)


def _any_direct(results: list[SearchResult]) -> bool:
    return any(r.layer == "direct" for r in results)


def _best_relevance(results: list[SearchResult]) -> float:
    """The relevance of the best direct result, 0 where there is none."""
    return max((r.relevance for r in results if r.layer == "direct"), default=0.0)


def _told_in_other_language(query: str, results: list[SearchResult]) -> bool:
    """Whether there are direct results and every one is written in the other of Chinese
    and English."""
    direct = [r for r in results if r.layer == "direct"]
    return bool(direct) and all(has_cjk(r.text) != has_cjk(query) for r in direct)


def _across_languages(
    scored: list[tuple[ScoreComponents, _Candidate]],
) -> list[tuple[ScoreComponents, _Candidate]]:
    """Matches told in Chinese and in English, each language's in its own order, taken
    from whichever language's next match is the more relevant; matches of one language
    as they are. Strength fuses a lexical channel that cannot read the other script (an
    English question shares no word with a Chinese text), so it ranks the two languages
    on different scales; relevance is calibrated to compare across them."""
    chinese: list[tuple[ScoreComponents, _Candidate]] = []
    others: list[tuple[ScoreComponents, _Candidate]] = []
    for pair in scored:
        (chinese if has_cjk(_text(pair[1])) else others).append(pair)
    if not chinese or not others:
        return scored
    return list(heapq.merge(chinese, others, key=lambda pair: -pair[0].relevance))


def turns_beside(
    matches: Sequence[str], next_of: Mapping[str, str]
) -> dict[str, tuple[str, Literal["out", "in"]]]:
    """The turns next to a matching turn in its session that are no match themselves:
    each one's match and whether it comes after the match (``out``, its reply) or before
    it (``in``, the turn it replies to). ``next_of`` maps a turn to the turn after it."""
    matched = set(matches)
    previous_of = {after: before for before, after in next_of.items()}
    beside: dict[str, tuple[str, Literal["out", "in"]]] = {}
    for match in matches:
        around: tuple[tuple[str | None, Literal["out", "in"]], ...] = (
            (next_of.get(match), "out"),
            (previous_of.get(match), "in"),
        )
        for turn, direction in around:
            if turn is not None and turn not in matched and turn not in beside:
                beside[turn] = (match, direction)
    return beside


def _context_turns(admitted: list[_Candidate], direct: list[_Candidate]) -> list[_Candidate]:
    """The candidates next to a matching turn in its session that are no match
    themselves (:func:`turns_beside`), each marked as that match's neighbour one ``NEXT``
    hop away. A reply often answers without the question's words ("How long have you
    been married?" - "5 years already!"), so its own relevance stays below the floor while
    its strength, a share of the question's (``_CONTEXT``), ranks it near the match. It is
    shown for the match, not as one: its relevance stays its own, so it never counts as a
    match nor makes a search find something, and only what matched is recorded as used."""
    turns = {c.id: c for c in admitted if c.episode is not None}
    next_of = {c.id: c.next_id for c in turns.values() if c.next_id in turns}
    matches = [c.id for c in direct if c.episode is not None]
    beside = []
    for turn_id, (match, direction) in turns_beside(matches, next_of).items():
        turn = turns[turn_id]
        step = PathStep(
            from_id=match, to_id=turn_id, relation=EdgeType.NEXT.value, direction=direction
        )
        turn.hit = ExpansionHit(memory_id=turn_id, distance=1, path=[step])
        turn.context_turn = True
        beside.append(turn)
    return beside


def _text(c: _Candidate) -> str:
    return (c.memory or c.episode).text  # type: ignore[union-attr]


def _vector_kinds(kinds: set[VectorKind], want_episodes: bool) -> list[VectorKind]:
    """The vector kinds a search seeds from: a memory is found through its own vector
    and through its topic's and object's."""
    asked = [VectorKind.MEMORY, VectorKind.TOPIC, VectorKind.OBJECT]
    asked = asked if VectorKind.MEMORY in kinds else []
    if want_episodes:
        asked.append(VectorKind.EPISODE)
    return asked


class HybridRetriever:
    """Searches one store with one embedder under the retrieval settings."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        settings: RetrievalSettings,
        planner: LLMQueryPlanner | None = None,
        relevance: RelevanceModel | None = None,
        recent: RecentVectors | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self._planner = planner
        if recent is not None and recent.embedder is not embedder:
            raise ValueError("recent must keep the vectors of the retriever's own embedder")
        self._recent = recent if recent is not None else RecentVectors(embedder)
        self._cache_lock = threading.Lock()
        self._access_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-access")
        self._side_pool: ThreadPoolExecutor | None = None  # made on first use, if at all
        self._warm_pool: ThreadPoolExecutor | None = None  # loads a user's vectors, likewise
        self._relevance = relevance or relevance_model_for(embedder.model_name)
        self._background_vectors: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def relevance_model(self) -> RelevanceModel:
        """The model that turns a candidate's evidence into its relevance."""
        return self._relevance

    def wait_for_access(self) -> None:
        """Wait until the access counts of finished searches are written."""
        self._access_pool.submit(lambda: None).result()

    def close(self) -> None:
        """Finish pending access-count updates."""
        self._access_pool.shutdown(wait=True)
        for pool in (self._side_pool, self._warm_pool):
            if pool is not None:
                pool.shutdown(wait=True)

    # -- public ------------------------------------------------------------------------

    def plan(self, query: str, mode: Mode, expand_depth: int) -> QueryPlan:
        """The plan a search starts with: the rules' (seed 000 §12.3.2). An LLM planner,
        where configured, is asked only once that search has found nothing."""
        return plan_heuristically(query, mode, expand_depth)

    def search(
        self,
        user_id: str,
        query: str,
        *,
        memory_types: Sequence[MemoryType] | None = None,
        window: TimeWindow | None = None,
        max_results: int = 10,
        expand_depth: int = 1,
        mode: Mode = "auto",
        relation_types: Iterable[LinkType | str] | None = None,
        include_invalid: bool = False,
        kinds: Sequence[str] = ("memory", "episode"),
        now: datetime | None = None,
        record_access: bool = True,
        min_relevance: float | None = None,
        include_sensitive: bool = False,
        episode_ids: Sequence[str] | None = None,
    ) -> list[SearchResult]:
        """Search a user's memory; see the module docstring for the steps. With
        ``episode_ids``, only among those episodes (:meth:`_within`)."""
        if not _whole(max_results) or not 1 <= max_results <= 100:
            raise InvalidInputError("must be a whole number between 1 and 100", "max_results")
        if not _whole(expand_depth) or not 0 <= expand_depth <= self._settings.max_expand_depth:
            raise InvalidInputError(
                f"must be between 0 and {self._settings.max_expand_depth}", "expand_depth"
            )
        if mode not in ("fast", "deep", "auto"):
            raise InvalidInputError("use fast, deep or auto", "mode")
        if relation_types is not None:
            relation_filter(relation_types)  # refuse unknown names before any work
        if (
            not isinstance(kinds, list | tuple | set | frozenset)
            or not kinds
            or any(k not in _KINDS for k in kinds)
        ):
            raise InvalidInputError("use 'memory' and/or 'episode'", "kinds")
        kind_set = {VectorKind(k) for k in kinds}
        within = _allowed_episodes(episode_ids, kind_set, memory_types)
        if within is not None:
            kind_set = {VectorKind.EPISODE}
            if not within:
                return []
        floor = self._settings.relevance_floor if min_relevance is None else min_relevance
        if not isinstance(floor, int | float) or isinstance(floor, bool) or not 0 <= floor <= 1:
            raise InvalidInputError("must be between 0 and 1", "min_relevance")
        plan = self.plan(query, mode, expand_depth)
        types = list(memory_types) if memory_types else None  # the caller's, never a guess
        now = now or datetime.now(UTC)

        want_episodes = VectorKind.EPISODE in kind_set and not types  # episodes have no type
        warm = self._warm_loads()
        vector_kinds = _vector_kinds(kind_set, want_episodes)
        if warm is not None and not self._store.vectors_in_memory(user_id, vector_kinds):
            # a user's first search in this process: the vectors load while the query
            # embeds (not on every search: a thread beside the embedding slows it)
            warm.submit(self._store.warm_vectors, user_id, vector_kinds)
        visible = _Visible(types, window, include_invalid, include_sensitive, now)
        pool = self._pool(max_results)

        def searched(
            as_planned: QueryPlan, asked: str, glossed_into: Language | None = None
        ) -> list[SearchResult] | None:
            semantic = as_planned.semantic_query
            # A gloss into Chinese is searched only where the memory holds a word of it:
            # an English memory holds none, so an English question that finds nothing
            # costs a lexical lookup, not a second search. What it adds is words (the
            # question's own vector already reaches Chinese facts); a gloss into English
            # adds a vector too, which finds facts sharing no word with it.
            if glossed_into == "zh" and not self._store.lexical_search(
                user_id, semantic, self._lexical_kinds(kind_set, want_episodes), 1
            ):
                return None
            filters: list[LinkType | str] | None = None
            if relation_types is not None:
                filters = list(relation_types)
            elif as_planned.relation_filters:
                filters = list(as_planned.relation_filters)
            request = _Request(
                user_id=user_id,
                query=asked,
                plan=as_planned,
                vector=self._recent.query(user_id, query_text(semantic)),
                lexical=self._lexical(user_id, semantic, kind_set, want_episodes, pool),
                kinds=kind_set,
                want_episodes=want_episodes,
                visible=replace(visible, glossed_into=glossed_into),
                filters=filters,
                causes_only=as_planned.causes_only and relation_types is None,
                max_results=max_results,
                pool=pool,
                floor=floor,
                now=now,
                within=within,
                context_turns=as_planned.expand_depth > 0 and relation_types is None,
            )
            with self._store.reading():  # one snapshot, one read transaction on a server
                return self._search_store(request)

        final = self._asked_further(query, plan, mode, expand_depth, searched)
        shown = [r for r in final if r.layer == "direct"]
        if record_access and shown:  # what matched is what was used, not its neighbours
            self._access_pool.submit(
                self._record_access,
                user_id,
                [r.id for r in shown if r.kind == "memory"],
                [r.id for r in shown if r.kind == "episode"],
                now,
            )
        return final

    def _asked_further(
        self, query: str, plan: QueryPlan, mode: Mode, expand_depth: int, searched: _Searched
    ) -> list[SearchResult]:
        """The question searched as asked, then again where that found nothing
        (:meth:`_asked_again`), or where all it found is told in the other of Chinese
        and English: asked in that language, among what is told in it
        (:meth:`_asked_in_other_language`), the question may match as a question in that
        language would. Of those two, the search whose best direct result is the more
        relevant."""
        final = searched(plan, query, None) or []
        if not _any_direct(final):
            again = self._asked_again(query, plan, mode, expand_depth, searched)
            return final if again is None else again
        if _told_in_other_language(query, final):
            second = self._planner.plan(query, mode, expand_depth) if self._planner else None
            again = self._asked_in_other_language(query, plan, second, searched)
            if again and _best_relevance(again) > _best_relevance(final):
                return again
        return final

    def _asked_again(
        self,
        query: str,
        plan: QueryPlan,
        mode: Mode,
        expand_depth: int,
        searched: _Searched,
    ) -> list[SearchResult] | None:
        """The search of a question that matched nothing as asked, run again: as the LLM
        planner rewrote it, then in the other of Chinese and English
        (:meth:`_asked_in_other_language`: the memory may have been told in it). The last
        search run, or None where none was."""
        final: list[SearchResult] | None = None
        second = self._planner.plan(query, mode, expand_depth) if self._planner else None
        if second is not None and second.semantic_query not in (query, ""):
            update = {"semantic_query": second.semantic_query}
            final = searched(second.model_copy(update=update), query, None)
            if final and _any_direct(final):
                return final
        again = self._asked_in_other_language(query, plan, second, searched)
        return final if again is None else again

    def _asked_in_other_language(
        self, query: str, plan: QueryPlan, second: QueryPlan | None, searched: _Searched
    ) -> list[SearchResult] | None:
        """The question searched in the other of Chinese and English: as the LLM planner
        translated it (``second``, its plan), else glossed word by word (:meth:`_gloss`)
        among what is told in that language (the question as asked still names its
        people and dates), where the memory holds a word of the gloss. None where there
        is neither, or the memory holds no word of the gloss."""
        translation = second.other_language_query if second is not None else None
        if second is not None and translation and translation not in (query, second.semantic_query):
            update = {"semantic_query": translation}
            return searched(second.model_copy(update=update), translation, None)
        glossed = self._gloss(query)
        if glossed is None:
            return None
        text, language = glossed
        return searched(plan.model_copy(update={"semantic_query": text}), query, language)

    def _gloss(self, query: str) -> tuple[str, Language] | None:
        """The question glossed into the other of Chinese and English, where the settings
        allow (``retrieval.english_gloss``, ``retrieval.chinese_gloss``), with the language.
        Its words of when are left out: the search reads them from the question as asked,
        and glossed ("2023 year 5 month 7 day") they are words no memory says."""
        query = without_time_words(query) or query
        if has_cjk(query):
            english = english_gloss(query) if self._settings.english_gloss else None
            return None if english is None else (english, "en")
        chinese = chinese_gloss(query) if self._settings.chinese_gloss else None
        return None if chinese is None else (chinese, "zh")

    def _search_store(self, r: _Request) -> list[SearchResult]:
        """The steps of a search that read the store (see the module docstring)."""
        plan, user, now = r.plan, r.user_id, r.now
        want_episodes = r.want_episodes
        candidates = self._seed(
            user, plan.semantic_query, r.vector, r.lexical, r.kinds, want_episodes, r.pool
        )
        if r.within is not None:
            candidates = self._within(
                user, plan.semantic_query, candidates, r.within, r.vector, r.visible.now, r.pool
            )
        admitted = [c for c in candidates.values() if r.visible.admits(c)]
        self._relate(user, plan.semantic_query, r.vector, admitted, r.query)
        self._favour_named_dates(r.query, admitted, now)
        direct = [c for c in admitted if c.relevance >= r.floor and c.relevance > 0]
        beside = _context_turns(admitted, direct) if r.context_turns else []
        scored = _across_languages(
            sorted(
                [(self._components(c, 0, now), c) for c in direct]
                + [(self._components(c, 1, now), c) for c in beside],
                key=lambda pair: (-weighted_score(pair[0], self._settings), pair[1].id),
            )
        )

        top_relevance = max((c.relevance for c in direct), default=0.0)
        expand = bool(direct) and (
            plan.expand
            or (
                plan.mode == "auto"
                and plan.expand_depth > 0
                and top_relevance < self._settings.weak_similarity
            )
        )
        results, related = self._layer(
            user,
            scored,
            expand=expand and VectorKind.MEMORY in r.kinds,
            depth=max(plan.expand_depth, 1) if expand else 0,
            filters=r.filters,
            causes_only=r.causes_only,
            visible=r.visible,
            query=plan.semantic_query,
            asked=r.query,
            query_vector=r.vector,
            now=now,
            max_results=r.max_results,
        )
        return self._assemble(results, related, r.max_results, now.tzinfo or UTC)

    # -- steps -------------------------------------------------------------------------

    def _side_reads(self) -> ThreadPoolExecutor | None:
        """Threads for a search's reads beside its main line, where the store allows them
        (:attr:`GraphStore.parallel_reads`); None where it does not."""
        if not self._store.parallel_reads:
            return None
        with self._cache_lock:
            if self._side_pool is None:
                self._side_pool = ThreadPoolExecutor(2, thread_name_prefix="memory-search")
            return self._side_pool

    def _warm_loads(self) -> ThreadPoolExecutor | None:
        """The threads that load a user's caches at their first search in the process,
        where the store reads in parallel: the vectors, and the lexical lookup that builds
        the user's index. They are not the side-read threads, so a big user's loads
        (seconds at 100,000 memories), or a second search of theirs waiting for them,
        never hold up other users' searches; a search whose vectors they have not loaded
        yet loads them itself."""
        if not self._store.parallel_reads:
            return None
        with self._cache_lock:
            if self._warm_pool is None:
                self._warm_pool = ThreadPoolExecutor(2, thread_name_prefix="memory-warm")
            return self._warm_pool

    def _pool(self, max_results: int) -> int:
        """How many candidates each channel hands the fusion: ``vector_candidates``, and
        never fewer than the caller asked for, as a channel cut at 50 cannot fill a page
        of 100 however many of the user's items match."""
        return max(self._settings.vector_candidates, max_results)

    def _lexical_kinds(self, kinds: set[VectorKind], want_episodes: bool) -> list[VectorKind]:
        """The kinds a search looks up by words."""
        wanted = [VectorKind.MEMORY] if VectorKind.MEMORY in kinds else []
        if want_episodes:
            wanted.append(VectorKind.EPISODE)
        return wanted

    def _lexical(
        self, user: str, query: str, kinds: set[VectorKind], want_episodes: bool, k: int
    ) -> Callable[[], list[LexicalHit]] | None:
        """The search's lexical hits, looked up now on another thread where the store
        allows it (:meth:`_side_reads`): it runs on the other core while the vectors are
        scanned, and for a user with 100,000 memories each takes tens of milliseconds. It
        starts after the query embedding, which uses both cores. A lookup that first builds
        the user's index runs on the loading threads instead (:meth:`_warm_loads`). None
        where the store looks them up itself when seeding (one statement on a server)."""
        wanted = self._lexical_kinds(kinds, want_episodes)
        side = self._side_reads()
        if side is None or not wanted:
            return None
        warm = None if self._store.lexical_in_memory(user) else self._warm_loads()
        if warm is not None:
            return warm.submit(self._building_lexical, user, query, wanted, k).result
        return side.submit(self._store.lexical_search, user, query, wanted, k).result

    def _building_lexical(
        self, user: str, query: str, kinds: list[VectorKind], k: int
    ) -> list[LexicalHit]:
        """A lookup that builds the user's index, on a loading thread; what the build freed
        is then handed back to the system (:func:`..heap.release_freed_memory`): left in
        that thread's malloc arena, it kept a 10,000-memory process 13 MB higher."""
        try:
            return self._store.lexical_search(user, query, kinds, k)
        finally:
            release_freed_memory()

    def _seed(
        self,
        user: str,
        query: str,
        query_vector: npt.NDArray[np.float32],
        lexical: Callable[[], list[LexicalHit]] | None,
        kinds: set[VectorKind],
        want_episodes: bool,
        pool: int,
    ) -> dict[tuple[VectorKind, str], _Candidate]:
        """The ``pool`` best candidates of each channel with their stored objects, the
        similarity of lexical-only hits and each episode's next turn (one store call: one
        round trip on a server)."""
        seeds = self._store.seed_search(
            user,
            SeedQuery(
                vector=query_vector,
                vector_kinds=tuple(_vector_kinds(kinds, want_episodes)),
                text=query,
                lexical_kinds=tuple(self._lexical_kinds(kinds, want_episodes)),
                k=pool,
                node_k=min(pool, _NODE_POOL),
                node_fanout=_NODE_FANOUT,
            ),
            lexical=lexical,
        )
        found: dict[tuple[VectorKind, str], _Candidate] = {}

        def get(kind: VectorKind, ref: str) -> _Candidate:
            return found.setdefault((kind, ref), _Candidate(kind=kind, id=ref))

        hits = seeds.vector
        if VectorKind.MEMORY in kinds:
            for hit in hits.get(VectorKind.MEMORY, []):
                get(VectorKind.MEMORY, hit.ref_id).see(hit.score)
            node_scores: dict[str, float] = {}
            for node_kind in (VectorKind.TOPIC, VectorKind.OBJECT):
                for hit in hits.get(node_kind, []):
                    node_scores[hit.ref_id] = max(hit.score, node_scores.get(hit.ref_id, -1.0))
            for node_id, memory_ids in seeds.node_memories.items():
                for memory_id in memory_ids:
                    get(VectorKind.MEMORY, memory_id).see(node_scores[node_id])
        if want_episodes:
            for hit in hits.get(VectorKind.EPISODE, []):
                get(VectorKind.EPISODE, hit.ref_id).see(hit.score)
        for kind in (VectorKind.MEMORY, VectorKind.EPISODE):
            ranked = sorted(
                (c for c in found.values() if c.kind == kind and c.has_similarity),
                key=lambda c: (-c.similarity, c.id),
            )
            for rank, cand in enumerate(ranked):
                cand.vector_rank = rank
        for rank, lex in enumerate(seeds.lexical):
            get(lex.kind, lex.ref_id).lexical_rank = rank
        loaded = seeds.loaded
        for memory in loaded.memories:
            found[(VectorKind.MEMORY, memory.id)].memory = memory
        for episode in loaded.episodes:
            cand = found[(VectorKind.EPISODE, episode.id)]
            cand.episode = episode
            cand.next_id = loaded.next_episode.get(episode.id)
        for kind, scores in (
            (VectorKind.MEMORY, loaded.memory_similarity),
            (VectorKind.EPISODE, loaded.episode_similarity),
        ):
            for ref, score in scores.items():
                found[(kind, ref)].see(score)
        self._embed_unindexed(list(found.values()), query_vector)
        return found

    def _within(
        self,
        user: str,
        query: str,
        found: dict[tuple[VectorKind, str], _Candidate],
        allowed: frozenset[str],
        query_vector: npt.NDArray[np.float32],
        now: datetime,
        pool: int,
    ) -> dict[tuple[VectorKind, str], _Candidate]:
        """The candidates of a search restricted to ``allowed`` episodes: those the
        channels found, their lexical ranks counted among themselves (the order the whole
        memory gave them), and the other allowed episodes a search among them alone would
        find (:meth:`_closest`), scored on their own cosine and words (no lexical rank).
        However much else the user has, an integration's items (a LangGraph namespace)
        are never crowded out of the pool, nor ranked lower for what else matched."""
        kept = {
            key: cand
            for key, cand in found.items()
            if key[0] is VectorKind.EPISODE and key[1] in allowed
        }
        lexical = sorted(
            (c for c in kept.values() if c.lexical_rank is not None),
            key=lambda c: c.lexical_rank or 0,
        )
        for rank, cand in enumerate(lexical):  # their order, counted among themselves
            cand.lexical_rank = rank
        missing = sorted(ref for ref in allowed if (VectorKind.EPISODE, ref) not in kept)
        if not missing:
            return kept
        missing = self._closest(user, query, missing, query_vector, now, pool)
        loaded = self._store.load_candidates(user, [], missing, query_vector, unscored=missing)
        added = []
        for episode in loaded.episodes:
            cand = _Candidate(
                kind=VectorKind.EPISODE,
                id=episode.id,
                episode=episode,
                next_id=loaded.next_episode.get(episode.id),
            )
            score = loaded.episode_similarity.get(episode.id)
            if score is not None:
                cand.see(score)
            kept[(VectorKind.EPISODE, episode.id)] = cand
            added.append(cand)
        self._embed_unindexed(added, query_vector)
        return kept

    def _closest(
        self,
        user: str,
        query: str,
        missing: list[str],
        query_vector: npt.NDArray[np.float32],
        now: datetime,
        k: int,
    ) -> list[str]:
        """Of the allowed episodes the channels did not find, those each channel would
        have found had the search been among the allowed alone: the ``k`` (the pool)
        nearest by cosine and the first as many that hold the query's words, with any not
        embedded yet (as many again). All of them when they are no more than the two
        channels' pool: loading and scoring thousands, for a namespace of 10,000 notes,
        took half of its search's 0.66 s, for the same answer
        (``benchmarks/results/large_namespace.md``). Episodes expired by ``now`` and not
        yet purged are left out first: no search shows them, so they must not take the
        places of those it would."""
        if len(missing) <= 2 * k:
            return missing
        expired = set(self._store.expired_episode_ids(user, now, MAX_WITHIN + len(missing)))
        missing = [ref for ref in missing if ref not in expired]
        if len(missing) <= 2 * k:
            return missing
        cosines = self._store.similarities(user, VectorKind.EPISODE, missing, query_vector)
        nearest = sorted(cosines, key=lambda ref: (-cosines[ref], ref))[:k]
        unembedded = [ref for ref in missing if ref not in cosines][:k]
        return sorted({*nearest, *unembedded, *self._worded(user, query, set(missing), k)})

    def _worded(self, user: str, query: str, wanted: set[str], k: int) -> list[str]:
        """The first ``k`` of ``wanted`` in the order the lexical channel ranks the user's
        whole memory: read four times deeper each time until it has them, the hits run
        out, or :data:`MAX_WITHIN` beyond ``wanted`` were read (other turns that say the
        query's words better may come first)."""
        limit = 4 * k
        while True:
            hits = self._store.lexical_search(user, query, [VectorKind.EPISODE], limit)
            worded = [hit.ref_id for hit in hits if hit.ref_id in wanted][:k]
            if len(worded) == k or len(hits) < limit or limit >= MAX_WITHIN + len(wanted):
                return worded
            limit = min(4 * limit, MAX_WITHIN + len(wanted))

    def _embed_unindexed(
        self, candidates: list[_Candidate], query_vector: npt.NDArray[np.float32]
    ) -> None:
        """Embed now the text of lexical hits written so recently that the background
        indexer has not stored their vector yet, as it will (a memory searched right after
        it was written is judged on both channels, not on its words alone)."""
        waiting = [c for c in candidates if not c.has_similarity][:_EMBED_NOW]
        texts = []
        for cand in waiting:
            if cand.memory is not None:
                texts.append(cand.memory.text)
            elif cand.episode is not None:  # its own line: close enough until indexed
                texts.append(spoken_line(cand.episode))
        waiting = [c for c in waiting if c.memory is not None or c.episode is not None]
        if not waiting:
            return
        for cand, vector in zip(waiting, self._embedder.embed(texts), strict=True):
            cand.see(float(np.dot(vector, query_vector)))

    def _relate(
        self,
        user: str,
        query: str,
        query_vector: npt.NDArray[np.float32],
        candidates: list[_Candidate],
        question: str,
    ) -> None:
        """Match strength (for ranking) and calibrated relevance (for the floor) of the
        candidates of ``query``, the text searched: the ``question`` as asked, or as
        rewritten, translated or glossed. The people a question names are read as asked
        (a gloss says John as 约翰 若望, which names no one).

        Strength fuses the two channels with equal say, each scaled to this query: the
        dense lift over the background as a share of the best lift among the candidates,
        and the lexical rank as 2 / (2 + rank). An episode also takes a share
        (``_CONTEXT``) of its adjacent turn's strength: a reply often lacks the words of
        the question it answers, which sit in the turn before it; and ``_MENTION`` when
        the question names its speaker. Relevance is the
        calibrated probability of :mod:`.relevance`, comparable across queries.
        """
        background = Background.of(query_vector, self._background(query_language(query)))
        # once per search, not per candidate; a named date is matched against when things
        # happened (_favour_named_dates), so its words are not asked of the text
        words = set(word_tokens(without_dates(query)))
        model = self._relevance
        documents = []
        for cand in candidates:
            if cand.memory is not None:
                documents.append(memory_document(cand.memory))
            else:
                assert cand.episode is not None
                documents.append(episode_document(cand.episode))
                speaker = cand.episode.speaker
                if speaker and words & set(word_tokens(speaker)):
                    cand.mention = 1.0
        people = MemoryPeople(self._store, user, [c.episode for c in candidates if c.episode])
        evidence = name_evidence(
            people,
            question,
            user,
            documents,
            about_owner=lambda: any(_about_owner(c) for c in candidates),
        )
        owner_words = evidence.owner_words
        owner_asked = bool(words & owner_words) or asks_about_owner(query, words)
        if owner_asked and people.notes_person:  # notes about Bart are about the owner
            owner_words |= set(word_tokens(people.notes_person))
        other_script = other_script_forms(evidence.other_script)
        for cand, document in zip(candidates, documents, strict=True):
            cand.lift = background.lift(cand.similarity) if cand.has_similarity else 0.0
            cand.matched = matched_words(words, document)
            if other_script:  # Tom asked of 汤姆 is a word they share
                said = set(word_tokens(document))
                cand.matched += shared_in_other_script(other_script, words, said)
            asked = len(words)
            if (
                owner_asked
                and _about_owner(cand, people)
                and not _shares_owner_word(words, document, owner_words)
            ):
                cand.matched += 1
                asked += 0 if words & owner_words else 1
            cosine = cand.similarity if cand.has_similarity else background.mean
            cand.unknown_names = evidence.against
            cand.relevance = (
                0.0
                if evidence.strangers
                else model.score(cand.lift, cand.matched, asked, cosine, evidence.against)
            )
        best_lift = max((c.lift for c in candidates), default=0.0) or 1.0
        for cand in candidates:
            lexical = 0.0 if cand.lexical_rank is None else 2.0 / (2.0 + cand.lexical_rank)
            cand.own = 0.5 * cand.lift / best_lift + 0.5 * lexical
            cand.strength = cand.own
        episodes = {c.id: c for c in candidates if c.episode is not None}
        if not episodes:
            return
        for before in episodes.values():
            after = episodes.get(before.next_id) if before.next_id else None
            if after is not None:
                before.context = max(before.context, after.own)
                after.context = max(after.context, before.own)
        for cand in episodes.values():
            cand.strength = cand.own + _CONTEXT * cand.context + _MENTION * cand.mention

    @staticmethod
    def _favour_named_dates(query: str, candidates: list[_Candidate], now: datetime) -> None:
        """A question that names a day or month ("on October 13, 2023", "in July 2023"),
        a range of them, a day without its year ("on August 11": that day of any year) or
        a month without it ("in June", 6月: that month of any year) asks about what
        happened or was said then: what falls in that span gains
        ``_DATED_BONUS`` strength. A question that names none but says when relative to
        now ("yesterday", "last week", 昨晚, 上个月) asks about that span of days before
        the search's ``now``, and one that says a year or a season of one ("in 2022",
        "summer 2021", 2021年夏天) about that year or season; their words stay asked of
        the text, which may say them too ("last year", "in 2022" said in the
        conversation). What falls in the span is as recent as
        can be: asked about two weeks ago, what was said since is no fresher than what was
        said then. It orders the matches; relevance is unchanged."""
        tz = now.tzinfo or UTC
        named = named_dates(query, tz)
        spans, days, months = named.spans, set(named.yearless_days), set(named.yearless_months)
        if not spans and not days:
            spans = relative_spans(query, now) + year_spans(query, now)
        if not spans and not days and not months:
            return
        for cand in candidates:
            if cand.episode is not None:
                when = cand.episode.timestamp
            elif cand.memory is not None:
                when = cand.memory.event_time or cand.memory.created_at
            else:
                continue
            local = when.astimezone(tz)
            if (
                any(start <= when < end for start, end in spans)
                or (local.month, local.day) in days
                or local.month in months
            ):
                cand.strength += _DATED_BONUS
                cand.asked_then = True

    def _background(self, language: str) -> npt.NDArray[np.float32]:
        """Embeddings of the everyday sentences relevance is measured against (cached)."""
        with self._cache_lock:
            vectors = self._background_vectors.get(language)
            if vectors is None:
                vectors = shipped_background(
                    self._embedder.model_name, language, self._embedder.dimension
                )
            if vectors is None:
                vectors = self._embedder.embed(list(BACKGROUND[language]))
            self._background_vectors[language] = vectors
            return vectors

    def warm_up(self) -> None:
        """Embed the background sentences now rather than on the first search."""
        for language in BACKGROUND:
            self._background(language)

    def _components(self, c: _Candidate, distance: int, now: datetime) -> ScoreComponents:
        s = self._settings
        if c.memory is not None:
            m = c.memory
            importance, accesses = m.importance, m.access_count
            when, mtype = m.event_time or m.created_at, m.memory_type.value
        else:
            assert c.episode is not None
            e = c.episode
            importance, accesses, when, mtype = e.importance, e.access_count, e.timestamp, "event"
        # a question about a time asks about what was recent then (see _favour_named_dates)
        then = when if c.asked_then else now
        return ScoreComponents(
            semantic=round(c.strength, 9),
            relevance=round(c.relevance, 9),
            importance=importance,
            graph=graph_proximity(distance),
            recency=recency(when, then, mtype, s.decay_rates),
            access=access_frequency(accesses),
            similarity=round(max(c.similarity, 0.0), 9),
            lexical=float(c.matched),
            context=round(c.context, 9),
            mention=c.mention,
        )

    def _layer(
        self,
        user: str,
        scored: list[tuple[ScoreComponents, _Candidate]],
        *,
        expand: bool,
        depth: int,
        filters: list[LinkType | str] | None,
        causes_only: bool,
        visible: _Visible,
        query: str,
        asked: str,
        query_vector: npt.NDArray[np.float32],
        now: datetime,
        max_results: int,
    ) -> tuple[list[tuple[ScoreComponents, _Candidate]], list[tuple[ScoreComponents, _Candidate]]]:
        """Split candidates into direct matches and graph-related neighbours."""
        if not expand or depth == 0:
            return scored, []
        skip = [subject_node_id(user, "我"), subject_node_id(user, "你")]

        def walk(seeds: list[str]) -> dict[str, list[ExpansionHit]]:
            return self._store.expand_each(
                user,
                seeds,
                depth=depth,
                relation_types=filters,
                hub_cap=self._settings.hub_degree_cap,
                include_invalid=visible.include_invalid,
                skip_node_ids=skip,
            )

        # the best few memories are walked from together (one round trip per level on a
        # server); one that turns out to be a better match's neighbour is not used, and a
        # later match that takes its place is walked from on its own
        walks = walk([c.id for _, c in scored if c.kind == VectorKind.MEMORY][:_EXPAND_FROM])
        reached: dict[str, ExpansionHit] = {}
        direct: list[tuple[ScoreComponents, _Candidate]] = []
        related_ids: dict[str, ExpansionHit] = {}
        expanded = 0
        for comps, cand in scored:
            hit = reached.get(cand.id) if cand.kind == VectorKind.MEMORY else None
            if hit is not None and all(step.relation != SHARED_NODE for step in hit.path):
                related_ids[cand.id] = hit  # explained by a better match's explicit link
                continue
            direct.append((comps, cand))
            if (
                cand.kind != VectorKind.MEMORY
                or expanded >= _EXPAND_FROM
                or len(direct) > max_results
            ):
                continue
            expanded += 1
            if cand.id not in walks:
                walks.update(walk([cand.id]))
            for found in walks[cand.id]:
                if causes_only and any(
                    step.relation == LinkType.CAUSES.value and step.direction == "out"
                    for step in found.path
                ):
                    continue  # an effect of the match does not answer "why"
                if found.memory_id not in reached:
                    reached[found.memory_id] = found
        direct_ids = {c.id for _, c in direct}
        for memory_id, hit in reached.items():
            if memory_id not in direct_ids:
                related_ids.setdefault(memory_id, hit)
        if not related_ids:
            return direct, []
        known = {c.id: c for _, c in scored if c.kind == VectorKind.MEMORY}
        fresh = [mid for mid in related_ids if mid not in known]
        neighbours: dict[tuple[VectorKind, str], _Candidate] = {}
        loaded = self._store.load_candidates(user, fresh, [], query_vector, unscored=fresh)
        for memory in loaded.memories:
            cand = _Candidate(VectorKind.MEMORY, memory.id, memory=memory)
            score = loaded.memory_similarity.get(memory.id)
            if score is not None:
                cand.see(score)
            neighbours[(VectorKind.MEMORY, memory.id)] = cand
        self._relate(user, query, query_vector, list(neighbours.values()), asked)
        related: list[tuple[ScoreComponents, _Candidate]] = []
        for memory_id, hit in related_ids.items():
            maybe = known.get(memory_id) or neighbours.get((VectorKind.MEMORY, memory_id))
            if maybe is None or not visible.admits(maybe):
                continue
            cand = maybe
            cand.hit = hit
            related.append((self._components(cand, hit.distance, now), cand))
        return direct, self._select_neighbours(related)

    def _select_neighbours(
        self, related: list[tuple[ScoreComponents, _Candidate]]
    ) -> list[tuple[ScoreComponents, _Candidate]]:
        """At most a few neighbours per direct match, by link weight and relevance (seed 004)."""
        per_seed: dict[str, list[tuple[float, ScoreComponents, _Candidate]]] = {}
        for comps, cand in related:
            assert cand.hit is not None
            weight = (
                float(np.prod([step.weight for step in cand.hit.path])) if cand.hit.path else 0.0
            )
            choice = 0.6 * weight + 0.4 * comps.semantic
            per_seed.setdefault(cand.hit.path[0].from_id, []).append((choice, comps, cand))
        chosen: list[tuple[ScoreComponents, _Candidate]] = []
        for items in per_seed.values():
            items.sort(key=lambda t: (-t[0], t[2].id))
            chosen.extend(
                (comps, cand) for _, comps, cand in items[: self._settings.neighbors_per_hit]
            )
        return sorted(chosen, key=lambda p: (-weighted_score(p[0], self._settings), p[1].id))

    def _assemble(
        self,
        direct: list[tuple[ScoreComponents, _Candidate]],
        related: list[tuple[ScoreComponents, _Candidate]],
        max_results: int,
        zone: tzinfo,
    ) -> list[SearchResult]:
        related_cap = min(len(related), max(1, max_results // 2)) if related else 0
        shown_direct = direct[: max_results - related_cap]
        shown_ids = {c.id for _, c in shown_direct}
        shown_related = [
            (comps, cand)
            for comps, cand in related
            if cand.hit is not None and cand.hit.path[0].from_id in shown_ids
        ][:related_cap]
        if len(shown_direct) + len(shown_related) < max_results:
            shown_direct = direct[: max_results - len(shown_related)]
        # a turn beside a match took its place among the matches by score, and is shown
        # after them as that match's neighbour
        beside = [(comps, c) for comps, c in shown_direct if c.context_turn]
        matches = [(comps, c) for comps, c in shown_direct if not c.context_turn]
        return [self._result(c, comps, "direct", zone) for comps, c in matches] + [
            self._result(c, comps, "related", zone) for comps, c in beside + shown_related
        ]

    def _result(
        self,
        c: _Candidate,
        comps: ScoreComponents,
        layer: Literal["direct", "related"],
        zone: tzinfo,
    ) -> SearchResult:
        """A candidate as a result; its time on the clock of the search's ``now``."""
        related = c.hit is not None and layer == "related"
        common = {
            "score": weighted_score(comps, self._settings),
            "relevance": comps.relevance,
            "layer": layer,
            "graph_distance": c.hit.distance if related and c.hit else 0,
            "path": c.hit.path if related and c.hit else [],
            "components": comps,
            "sensitive": (c.memory or c.episode).sensitive,  # type: ignore[union-attr]
        }
        if c.memory is not None:
            m = c.memory
            return SearchResult(
                id=m.id,
                kind="memory",
                text=m.text,
                metadata=m.metadata,
                time=memory_time_text(m, zone),
                event_time=m.event_time,
                memory_type=m.memory_type.zh,
                title=m.title,
                session_id=m.session_id,
                **common,
            )
        assert c.episode is not None
        e = c.episode
        return SearchResult(
            id=e.id,
            kind="episode",
            text=e.text,
            metadata=e.metadata,
            time=episode_time_text(e, zone),
            event_time=e.timestamp,
            speaker=e.speaker,
            session_id=e.session_id,
            matched_modality="text" if isinstance(e.metadata.get("media"), dict) else None,
            **common,
        )

    def _record_access(
        self, user: str, memory_ids: list[str], episode_ids: list[str], at: datetime
    ) -> None:
        try:
            if memory_ids:
                self._store.record_access(user, memory_ids, at)
            if episode_ids:
                self._store.record_episode_access(user, episode_ids)
        except Exception:  # counting accesses must never fail a search; keep the trace
            log.exception(
                "could not record access for %d items", len(memory_ids) + len(episode_ids)
            )

"""A seeded synthetic memory workload: Chinese and English memories from templates,
shared subjects, causal links, spread-out times and attributes.

Writing 100,000 memories through the embedder would take most of an hour on a laptop
CPU, so the generator embeds each distinct subject, topic and object once (real
embeddings) and composes a memory's vector from its parts. Queries are embedded for real
at search time; only the stored corpus is composed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from ..builder import build_memory
from ..embeddings import Embedder, normalize_rows
from ..models import Episode, LinkType, MemoryLink, MemorySubgraph, NodeType, VectorKind
from ..store import GraphStore
from ..tools.arguments import CreateMemoryArgs

__all__ = ["QUERIES", "Tenants", "Workload", "populate", "populate_tenants", "populate_turns"]

_ZH_SUBJECTS = ["我", "小明", "小红", "妈妈", "爸爸", "老师", "同事老王", "室友", "姐姐", "邻居"]
_EN_SUBJECTS = [
    "I",
    "Tom",
    "Alice",
    "my mother",
    "my boss",
    "Caroline",
    "Melanie",
    "my roommate",
    "Dr. Lee",
    "Sam",
]
_ZH_FACTS = [
    ("吃饭", ["白米饭", "面条", "火锅", "饺子", "寿司", "沙拉"]),
    ("喜好", ["打篮球", "看电影", "听爵士乐", "爬山", "画画", "读科幻小说"]),
    ("情绪", ["开心", "不开心", "焦虑", "平静", "兴奋", "疲惫"]),
    ("工作", ["写报告", "开会", "加班", "出差", "面试", "培训"]),
    ("购物", ["水果", "衣服", "书", "电脑", "咖啡豆", "花"]),
    ("睡眠", ["很好", "失眠", "做噩梦", "早睡", "熬夜", "午睡"]),
    ("运动", ["跑步五公里", "游泳", "瑜伽", "骑车", "打羽毛球", "健身"]),
    ("旅行", ["去北京", "去上海", "去成都", "去海边", "去日本", "去云南"]),
]
_EN_FACTS = [
    ("ate", ["noodles", "a salad", "sushi", "pizza", "dumplings", "a burrito"]),
    ("likes", ["basketball", "jazz", "hiking", "painting", "science fiction", "board games"]),
    ("felt", ["happy", "anxious", "calm", "exhausted", "excited", "lonely"]),
    (
        "worked on",
        ["the quarterly report", "a job interview", "a client meeting", "overtime", "a workshop"],
    ),
    ("bought", ["fruit", "a new laptop", "running shoes", "coffee beans", "flowers", "a novel"]),
    ("slept", ["badly", "well", "late", "through the alarm", "on the couch"]),
    ("went", ["running", "swimming", "to yoga", "cycling", "to the gym", "camping"]),
    ("travelled to", ["Beijing", "the coast", "Tokyo", "the mountains", "Chicago", "Lisbon"]),
]
_TYPES = ["事件", "事实", "观点", "关系"]
_PLACES_ZH = ["公司", "家里", "公园", "超市", "学校", "咖啡馆"]
_PLACES_EN = ["the office", "home", "the park", "the supermarket", "school", "a cafe"]

QUERIES = [
    "我为什么今天不开心?",
    "小明喜欢什么运动",
    "最近吃了什么",
    "我上周去哪里旅行了",
    "why was I so exhausted?",
    "What does Caroline like?",
    "when did Tom go swimming",
    "what did I buy at the supermarket",
    "和工作有关的记忆",
    "anything related to sleep",
]


@dataclass
class Workload:
    """What :func:`populate` wrote: the user and the ids in write order."""

    user_id: str
    memory_ids: list[str]
    links: int


@dataclass
class Tenants:
    """What :func:`populate_tenants` wrote: other users' memories around the measured one."""

    sizes: dict[str, int]
    links: int

    @property
    def memories(self) -> int:
        return sum(self.sizes.values())

    def median_user(self) -> str:
        ordered = sorted(self.sizes, key=lambda u: (self.sizes[u], u))
        return ordered[len(ordered) // 2]


def _memories(
    rng: random.Random, count: int, start: datetime
) -> Iterator[tuple[CreateMemoryArgs, datetime]]:
    for i in range(count):
        zh = rng.random() < 0.5
        subject = rng.choice(_ZH_SUBJECTS if zh else _EN_SUBJECTS)
        topic, objects = rng.choice(_ZH_FACTS if zh else _EN_FACTS)
        attributes = {}
        when = start + timedelta(minutes=37 * i + rng.randint(0, 30))
        if rng.random() < 0.7:
            attributes["时间" if zh else "time"] = when.strftime("%Y-%m-%d %H:%M")
        if rng.random() < 0.3:
            attributes["地点" if zh else "place"] = rng.choice(_PLACES_ZH if zh else _PLACES_EN)
        args = CreateMemoryArgs(
            subject=subject,
            memory_type=rng.choice(_TYPES),
            topic=topic,
            object=rng.choice(objects),
            attributes=attributes,
            importance=round(rng.uniform(0.2, 1.0), 2),
        )
        yield args, when


def _word_vectors(
    embedder: Embedder, words: dict[str, npt.NDArray[np.float32]]
) -> Callable[[str], npt.NDArray[np.float32]]:
    """A word's real embedding, each distinct word embedded once (kept in ``words``)."""

    def vector(text: str) -> npt.NDArray[np.float32]:
        if text not in words:
            words[text] = embedder.embed([text])[0]
        return words[text]

    return vector


def populate(
    store: GraphStore,
    embedder: Embedder,
    count: int,
    user_id: str = "bench-user",
    seed: int = 7,
    link_share: float = 0.1,
    progress: Callable[[int], None] = lambda _done: None,
    words: dict[str, npt.NDArray[np.float32]] | None = None,
) -> Workload:
    """Write ``count`` memories for one user with composed vectors and causal links.

    ``words`` caches the embedding of each distinct word across calls.
    """
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    vector = _word_vectors(embedder, {} if words is None else words)

    ids: list[str] = []
    links = 0
    batch: list[tuple[MemorySubgraph, CreateMemoryArgs]] = []
    causes: list[MemoryLink] = []

    def flush() -> None:
        store.write_memories([graph for graph, _ in batch])  # one transaction per batch
        for link in causes:
            store.add_link(link)
        causes.clear()
        memory_vectors, topic_vectors, object_vectors = {}, {}, {}
        for graph, args in batch:
            parts = [vector(args.subject), vector(args.topic)]
            topic = graph.node(NodeType.TOPIC)
            obj = graph.node(NodeType.OBJECT)
            assert topic is not None
            topic_vectors[topic.id] = vector(args.topic)
            if obj is not None and args.object:
                parts.append(vector(args.object))
                object_vectors[obj.id] = vector(args.object)
            memory_vectors[graph.memory.id] = normalize_rows(np.sum(parts, axis=0))[0]
        store.set_embeddings(user_id, VectorKind.MEMORY, memory_vectors)
        store.set_embeddings(user_id, VectorKind.TOPIC, topic_vectors)
        store.set_embeddings(user_id, VectorKind.OBJECT, object_vectors)
        batch.clear()

    for args, when in _memories(rng, count, start):
        graph = build_memory(user_id, args, reference_time=when)
        ids.append(graph.memory.id)
        batch.append((graph, args))
        if len(ids) > 5 and rng.random() < link_share:
            cause = ids[rng.randint(max(0, len(ids) - 50), len(ids) - 2)]
            causes.append(
                MemoryLink(
                    user_id=user_id,
                    source_id=cause,
                    target_id=graph.memory.id,
                    type=LinkType.CAUSES,
                )
            )
            links += 1
        if len(batch) >= 500:
            flush()
            progress(len(ids))
    if batch:
        flush()
    progress(len(ids))
    return Workload(user_id=user_id, memory_ids=ids, links=links)


def populate_tenants(
    store: GraphStore,
    embedder: Embedder,
    users: int,
    memories: int,
    seed: int = 11,
    progress: Callable[[int], None] = lambda _done: None,
) -> Tenants:
    """Write ``memories`` memories spread over ``users`` other users, sized like real
    tenants: a few heavy users and a long tail (a Pareto draw, at least one memory each)."""
    if users <= 0 or memories <= 0:
        return Tenants(sizes={}, links=0)
    rng = random.Random(seed)
    weights = [rng.paretovariate(1.2) for _ in range(users)]
    total = sum(weights)
    sizes = [max(1, round(memories * w / total)) for w in weights]
    words: dict[str, npt.NDArray[np.float32]] = {}
    written: dict[str, int] = {}
    links = 0
    for i, size in enumerate(sizes):
        user = f"tenant-{i:05d}"
        work = populate(store, embedder, size, user_id=user, seed=seed + i, words=words)
        written[user] = size
        links += work.links
        progress(sum(written.values()))
    return Tenants(sizes=written, links=links)


_TURNS_PER_SESSION = 40


def _turn(rng: random.Random) -> tuple[str, list[str]]:
    """A line of chat about something the memories are about, and the parts it is
    composed of (its vector is theirs, summed)."""
    place_index = rng.randrange(len(_PLACES_ZH))
    if rng.random() < 0.5:
        subject = rng.choice(_ZH_SUBJECTS)
        topic, objects = rng.choice(_ZH_FACTS)
        obj, place = rng.choice(objects), _PLACES_ZH[place_index]
        return f"{subject}今天在{place}{topic}，{obj}。", [subject, topic, obj, place]
    subject = rng.choice(_EN_SUBJECTS)
    topic, objects = rng.choice(_EN_FACTS)
    obj, place = rng.choice(objects), _PLACES_EN[place_index]
    return f"{subject} {topic} {obj} at {place} today.", [subject, topic, obj, place]


def populate_turns(
    store: GraphStore,
    embedder: Embedder,
    count: int,
    user_id: str = "bench-chat",
    seed: int = 13,
    progress: Callable[[int], None] = lambda _done: None,
    words: dict[str, npt.NDArray[np.float32]] | None = None,
) -> int:
    """Write ``count`` turns of chat for one user (two speakers, sessions of 40 turns a
    day apart), embedded as the indexer would leave them: a user who chats a lot, whose
    searches read turns as much as memories. Vectors are composed as :func:`populate`'s."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    vector = _word_vectors(embedder, {} if words is None else words)

    written = 0
    while written < count:
        batch: list[Episode] = []
        parts: dict[str, list[str]] = {}
        for i in range(written, min(written + 1000, count)):
            session, turn = divmod(i, _TURNS_PER_SESSION)
            text, composed = _turn(rng)
            episode = Episode(
                user_id=user_id,
                text=text,
                session_id=f"chat-{session}",
                speaker="Ann" if turn % 2 else "Bob",
                timestamp=start + timedelta(days=session, seconds=30 * turn),
            )
            batch.append(episode)
            parts[episode.id] = composed
        store.add_episodes(batch)
        store.set_embeddings(
            user_id,
            VectorKind.EPISODE,
            {
                ref: normalize_rows(np.sum([vector(p) for p in ps], axis=0))[0]
                for ref, ps in parts.items()
            },
        )
        written += len(batch)
        progress(written)
    return written

"""Cross-lingual questions: a fact said in English, asked in Chinese, and the other way.

A bilingual user tells the agent something in one language and later asks in the other.
Neither dev set has such a question (LoCoMo is English throughout, MADial-Bench Chinese),
so here are 24 first-person facts written in both languages, each with a question in both,
and 12 questions in both languages that none of them answers. The English facts are one
user's memory, the Chinese ones another's; each fact is a one-turn session (``add_messages``)
and each question goes through ``mp.search`` with its defaults.

Four directions: English questions of the English memory and Chinese of the Chinese (the
same-language controls), Chinese questions of the English memory and English of the
Chinese. A fifth row is a bilingual memory, a third user told the even facts in English
and the odd ones in Chinese, each asked in the language it was not told in (and the
unanswered questions in both languages): there a question can meet a weak match in its
own language. Reported per direction: how often the fact is the first direct result (recall@1)
and among the first three (hit@3), the other direct results per answerable question, the
fact's mean relevance, and the direct results per unanswerable question. The sentences are
hand-written (a translation pair per fact), so the set checks a behaviour; it is too small,
and too regular, to choose a constant with.

The "people" rows ask eight facts about people named in both scripts as the dictionary
writes them (Tom, 汤姆; David, 大卫) of two more memories, one per language, that record
what their owner is called (Alice, 小芳), in the four directions; their last figure is the
direct results per question about someone none of the facts names (Henry, 亨利): a name
the memory never held is evidence against every match, a name it holds in the other
script is not.

Without an LLM, a question that finds nothing is searched again glossed word by word into
the other language (``retrieval/gloss.py``); ``--without-gloss`` measures without either
gloss (``retrieval.english_gloss`` and ``retrieval.chinese_gloss`` off), as before them.

``--planner`` asks the same questions of the same memories through an LLM query planner
(the real ``openai`` client, answered by the tests' scripted server on 127.0.0.1) whose
plan gives each question's hand-written translation as its ``other_language_query``: a
question that finds nothing as asked is searched again in the other language. The
translations are perfect, so this is the most a planner's translation can give. ::

    .venv/bin/python benchmarks/micro/cross_lingual.py   # about 1 minute
    .venv/bin/python benchmarks/micro/cross_lingual.py --without-gloss
    .venv/bin/python benchmarks/micro/cross_lingual.py --planner
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings
from memory_platform.retrieval import SearchResult

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the tests' scripted LLM
from tests.support.openai_stub import OpenAIStub

FACTS: tuple[tuple[str, str, str, str], ...] = (
    # (English fact, Chinese fact, English question, Chinese question)
    ("I work as a nurse at the city hospital.", "我在市医院当护士。",
     "What is my job?", "我是做什么工作的？"),
    ("My sister Anna lives in Berlin.", "我姐姐安娜住在柏林。",
     "Where does my sister live?", "我姐姐住在哪里？"),
    ("I'm allergic to peanuts.", "我对花生过敏。", "What am I allergic to?", "我对什么过敏？"),
    ("Our cat is called Mochi.", "我们的猫叫麻薯。",
     "What is our cat's name?", "我们的猫叫什么名字？"),
    ("I started learning the piano last month.", "我上个月开始学钢琴。",
     "Which instrument am I learning?", "我在学什么乐器？"),
    ("My favourite food is spicy hotpot.", "我最喜欢吃麻辣火锅。",
     "What is my favourite food?", "我最喜欢吃什么？"),
    ("I run five kilometres every morning.", "我每天早上跑五公里。",
     "How far do I run in the morning?", "我每天早上跑多远？"),
    ("My son broke his arm playing football.", "我儿子踢足球时摔断了胳膊。",
     "How did my son get hurt?", "我儿子是怎么受伤的？"),
    ("We are moving to a new flat in June.", "我们六月份要搬到新公寓。",
     "When are we moving?", "我们什么时候搬家？"),
    ("I can't sleep because of the noise from the construction site.", "工地的噪音吵得我睡不着。",
     "Why can't I sleep?", "我为什么睡不着？"),
    ("My grandmother taught me to make dumplings.", "我奶奶教我包饺子。",
     "Who taught me to make dumplings?", "谁教我包饺子的？"),
    ("I drive an old blue Toyota.", "我开一辆旧的蓝色丰田车。", "What car do I drive?", "我开什么车？"),
    ("I'm saving money for a trip to Japan.", "我在攒钱去日本旅行。",
     "What am I saving money for?", "我在为什么攒钱？"),
    ("My best friend from college is a lawyer now.", "我大学最好的朋友现在是律师。",
     "What does my college friend do now?", "我大学的好朋友现在做什么工作？"),
    ("I have been feeling anxious about my exam next week.", "我对下周的考试感到很焦虑。",
     "Why am I anxious?", "我为什么焦虑？"),
    ("I volunteer at an animal shelter on Saturdays.", "我每周六在动物收容所做志愿者。",
     "What do I do on Saturdays?", "我周六做什么？"),
    ("My husband snores loudly.", "我老公打呼噜很响。", "Who snores?", "谁打呼噜？"),
    ("I quit coffee because it made my heart race.", "我戒了咖啡，因为喝了心跳太快。",
     "Why did I stop drinking coffee?", "我为什么戒咖啡？"),
    ("My daughter wants a bicycle for her birthday.", "我女儿生日想要一辆自行车。",
     "What does my daughter want for her birthday?", "我女儿生日想要什么？"),
    ("I grew up in a small village near the sea.", "我在海边的一个小村子长大。",
     "Where did I grow up?", "我在哪里长大的？"),
    ("I broke up with my boyfriend last winter.", "去年冬天我和男朋友分手了。",
     "When did I break up with my boyfriend?", "我什么时候和男朋友分手的？"),
    ("I am reading a book about the history of Rome.", "我在读一本关于罗马历史的书。",
     "What book am I reading?", "我在看什么书？"),
    ("My knee hurts when I climb stairs.", "我爬楼梯的时候膝盖疼。",
     "When does my knee hurt?", "我什么时候膝盖疼？"),
    ("I bought a new laptop for work.", "我买了一台新的工作用笔记本电脑。",
     "What did I buy for work?", "我为工作买了什么？"),
)  # fmt: skip
UNANSWERED: tuple[tuple[str, str], ...] = (
    ("What is my dog's name?", "我的狗叫什么名字？"),
    ("What is my favourite movie?", "我最喜欢的电影是什么？"),
    ("Where did I go on my honeymoon?", "我蜜月去了哪里？"),
    ("What is my brother's job?", "我哥哥是做什么的？"),
    ("Which football team do I support?", "我支持哪个足球队？"),
    ("What did I eat for breakfast yesterday?", "我昨天早餐吃了什么？"),
    ("When is my wedding anniversary?", "我的结婚纪念日是哪天？"),
    ("What language am I learning?", "我在学什么语言？"),
    ("How much is my rent?", "我的房租是多少？"),
    ("What is my blood type?", "我是什么血型？"),
    ("Which city did my parents move to?", "我父母搬到了哪个城市？"),
    ("What instrument does my son play?", "我儿子弹什么乐器？"),
)
PEOPLE: tuple[tuple[str, str, str, str], ...] = (
    # facts about people the dictionary names in both scripts, as FACTS
    ("Tom loves sushi.", "汤姆很喜欢吃寿司。", "What food does Tom love?", "汤姆喜欢吃什么？"),
    ("Anna lives in Berlin.", "安娜住在柏林。", "Where does Anna live?", "安娜住在哪里？"),
    ("David works as a dentist.", "大卫是一名牙医。", "What is David's job?", "大卫是做什么工作的？"),
    ("Susan paints landscapes at the weekend.", "苏珊周末画风景画。",
     "What does Susan do at the weekend?", "苏珊周末做什么？"),
    ("John has two cats.", "约翰养了两只猫。", "What pets does John have?", "约翰养了什么宠物？"),
    ("Mary plays the violin.", "玛丽会拉小提琴。",
     "What instrument does Mary play?", "玛丽会什么乐器？"),
    ("Kevin is afraid of spiders.", "凯文怕蜘蛛。", "What is Kevin afraid of?", "凯文害怕什么？"),
    ("Peter runs a small bakery.", "彼得开了一家小面包店。",
     "What business does Peter run?", "彼得经营什么生意？"),
)  # fmt: skip
STRANGERS: tuple[tuple[str, str], ...] = (
    ("What food does Henry love?", "亨利喜欢吃什么？"),
    ("Where does Olivia live?", "奥利维亚住在哪里？"),
    ("What is Daniel's job?", "丹尼尔是做什么工作的？"),
    ("What pets does George have?", "乔治养了什么宠物？"),
)
"""Questions about people no fact names, in both languages."""
OWNERS = (("user", "name", "Alice"), ("我", "名字", "小芳"))
"""What each people memory calls its owner (a memory under a name topic): with it, a
name the memory never held is evidence against every match (``retrieval/names.py``)."""
PEOPLE_USERS = ("english-people", "chinese-people")
DIRECTIONS = (
    # (label, whose memory: 0 English / 1 Chinese, question language: 0 English / 1 Chinese)
    ("English asked of English", 0, 0),
    ("Chinese asked of Chinese", 1, 1),
    ("Chinese asked of English", 0, 1),
    ("English asked of Chinese", 1, 0),
)
USERS = ("english-facts", "chinese-facts")
MIXED_LABEL = "one memory of both, asked in the other language"
MIXED = "both-languages"
"""The bilingual memory: fact i told in English for even i, in Chinese for odd i."""


Planning = Callable[[str, str], None]
"""Called with a question and its translation before the question is searched."""


def measure(
    mp: MemoryPlatform, memory: int, language: int, planning: Planning | None = None
) -> dict[str, float]:
    """One direction's figures (see the module's docstring)."""
    asked = [(fact[memory], (fact[2], fact[3]), language) for fact in FACTS]
    return _figures(mp, USERS[memory], asked, [(pair, language) for pair in UNANSWERED], planning)


def measure_people(mp: MemoryPlatform, memory: int, language: int) -> dict[str, float]:
    """One direction's figures of the facts about people, in memories that name their
    owner; "direct, unanswerable" is per question about a stranger."""
    asked = [(fact[memory], (fact[2], fact[3]), language) for fact in PEOPLE]
    strangers = [(pair, language) for pair in STRANGERS]
    return _figures(mp, PEOPLE_USERS[memory], asked, strangers, None)


def measure_mixed(mp: MemoryPlatform, planning: Planning | None = None) -> dict[str, float]:
    """The bilingual memory's figures: each fact asked in the language it was not told in."""
    asked = [(fact[i % 2], (fact[2], fact[3]), 1 - i % 2) for i, fact in enumerate(FACTS)]
    unanswered = [(pair, language) for pair in UNANSWERED for language in (0, 1)]
    return _figures(mp, MIXED, asked, unanswered, planning)


def _figures(
    mp: MemoryPlatform,
    user: str,
    asked: list[tuple[str, tuple[str, str], int]],
    unanswered: list[tuple[tuple[str, str], int]],
    planning: Planning | None,
) -> dict[str, float]:
    """Figures of questions ``asked`` (the fact told, the question in both languages, the
    language asked in) and ``unanswered`` (both languages, the language asked in)."""

    def search(pair: tuple[str, str], language: int) -> list[SearchResult]:
        if planning is not None:
            planning(pair[language], pair[1 - language])
        return mp.search(user, pair[language], record_access=False)

    first = three = others = 0
    relevance = 0.0
    for gold, pair, language in asked:
        results = search(pair, language)
        direct = [r.text for r in results if r.layer == "direct"]
        first += direct[:1] == [gold]
        three += gold in direct[:3]
        others += sum(text != gold for text in direct)
        relevance += next((r.relevance for r in results if r.text == gold), 0.0)
    nothing = sum(r.layer == "direct" for pair, lang in unanswered for r in search(pair, lang))
    n = len(asked)
    return {
        "recall@1": first / n,
        "hit@3": three / n,
        "other direct": others / n,
        "fact's relevance": relevance / n,
        "direct, unanswerable": nothing / len(unanswered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--planner", action="store_true", help="plan each search with the translation"
    )
    parser.add_argument(
        "--without-gloss", action="store_true", help="no question glossed into the other language"
    )
    args = parser.parse_args()
    retrieval = {"english_gloss": not args.without_gloss, "chinese_gloss": not args.without_gloss}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cross.db"
        settings = load_settings(backend="sqlite", sqlite_path=path, retrieval=retrieval)
        with MemoryPlatform(settings) as mp:
            start = datetime(2026, 1, 5, 9, tzinfo=UTC)
            for memory, user in enumerate(USERS):
                for i, fact in enumerate(FACTS):
                    said = {"role": "user", "content": fact[memory],
                            "timestamp": start + timedelta(days=i)}  # fmt: skip
                    mp.add_messages(user, f"s{i}", [said])
            for i, fact in enumerate(FACTS):
                said = {"role": "user", "content": fact[i % 2],
                        "timestamp": start + timedelta(days=i)}  # fmt: skip
                mp.add_messages(MIXED, f"s{i}", [said])
            for memory, user in enumerate(PEOPLE_USERS):
                mp.create_memory(user, OWNERS[memory][0], "fact", *OWNERS[memory][1:])
                for i, fact in enumerate(PEOPLE):
                    said = {"role": "user", "content": fact[memory],
                            "timestamp": start + timedelta(days=i)}  # fmt: skip
                    mp.add_messages(user, f"s{i}", [said])
            mp.wait_for_indexing(timeout=3600)
            if not args.planner:
                rows = [(label, measure(mp, memory, lang)) for label, memory, lang in DIRECTIONS]
                rows.append((MIXED_LABEL, measure_mixed(mp)))
                rows += [
                    (f"people: {label}", measure_people(mp, memory, lang))
                    for label, memory, lang in DIRECTIONS
                ]
        if args.planner:
            with OpenAIStub() as stub:

                def planning(question: str, translation: str) -> None:
                    # the planner is asked only by a search that found nothing: drop the
                    # reply the last question left unasked
                    stub.replies.clear()
                    plan = {"semantic_query": question, "other_language_query": translation}
                    stub.reply(json.dumps(plan))

                settings = load_settings(
                    backend="sqlite",
                    sqlite_path=path,
                    llm_base_url=stub.base_url,
                    retrieval=retrieval,
                )
                with MemoryPlatform(settings) as mp:
                    rows = [
                        (label, measure(mp, memory, lang, planning))
                        for label, memory, lang in DIRECTIONS
                    ]
                    rows.append((MIXED_LABEL, measure_mixed(mp, planning)))
    names = list(rows[0][1])
    print("| direction | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for label, figures in rows:
        print(f"| {label} | " + " | ".join(f"{figures[n]:.2f}" for n in names) + " |")


if __name__ == "__main__":
    main()

"""Questions about the memory's owner, asked of memories an agent wrote about its user.

Agents write ``create_memory`` with the user as subject ("user", "I", 我) and search with
the user's own words ("What is my job?") or their own ("What is the user's job?"). The
dev sets cannot show this path: LoCoMo's and MADial's memories are turns and events, and
LoCoMo's questions name their people. This small hand-written set (ten memories and
twenty questions per language, each fact asked in the first person and about "the
user", sixteen questions about the owner that no memory answers, and ten about other
people) is a check, not a fit: nothing was tuned on it. ::

    .venv/bin/python benchmarks/micro/owner_questions.py

Prints, per language, how many questions find their memory as a direct result (and
first), the direct results per question that nothing answers, and per question about
someone else (Lisa, John: a stranger to this memory; in Chinese also named in Chinese
characters, 王伟, 小丽); then the same once a memory records
what the owner is called ((user, name, Alice), (我, 名字, 小芳)); then the same facts kept
as notes, as the LangGraph store keeps its values, as notes that leave the user out
("Likes jazz music", 喜欢喝绿茶), and as notes about what is the user's ("My sister is
called Anna").
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from memory_platform import MemoryPlatform
from memory_platform.config import load_settings

MEMORIES = {
    "en": [
        ("user", "fact", "favourite food", "sushi", {}),
        ("user", "event", "adopted", "a dog named Rex", {"time": "2025-10-01"}),
        ("user", "fact", "works as", "software engineer", {}),
        ("user", "fact", "lives in", "Berlin", {}),
        ("user", "opinion", "dislikes", "horror movies", {}),
        ("user", "event", "ran", "a marathon", {"time": "2024-04-10"}),
        ("user", "fact", "allergic to", "peanuts", {}),
        ("user", "relation", "sister", "Anna", {}),
        ("user", "event", "broke", "left arm", {"time": "2024-01-15"}),
        ("user", "opinion", "likes", "jazz music", {}),
    ],
    "zh": [
        ("我", "事实", "喜欢的运动", "游泳", {}),
        ("我", "事件", "养了", "一只猫", {}),
        ("我", "事实", "工作", "老师", {}),
        ("我", "事件", "搬家", "到上海", {"时间": "2025-03-01"}),
        ("我", "观点", "讨厌", "下雨天", {}),
        ("我", "事实", "过敏", "花粉", {}),
        ("我", "事件", "考试", "没通过", {"时间": "2025-06-20"}),
        ("我", "事实", "女儿", "三岁", {}),
        ("我", "观点", "喜欢", "喝绿茶", {}),
        ("我", "事实", "开的车", "特斯拉", {}),
    ],
}
QUESTIONS = {
    "en": [
        ("What do I like to eat?", 0),
        ("What does the user like to eat?", 0),
        ("Do I have a pet?", 1),
        ("Does the user have a pet?", 1),
        ("What is my job?", 2),
        ("What is the user's job?", 2),
        ("Where do I live?", 3),
        ("Where does the user live?", 3),
        ("What kind of films should I avoid recommending?", 4),
        ("Which films does the user not enjoy?", 4),
        ("Have I done any long-distance running?", 5),
        ("Has the user done any long-distance running?", 5),
        ("Any food allergies I should know about?", 6),
        ("Is the user allergic to anything?", 6),
        ("Do I have any siblings?", 7),
        ("Does the user have siblings?", 7),
        ("Have I had any injuries?", 8),
        ("Has the user had any injuries?", 8),
        ("What music do I enjoy?", 9),
        ("What kind of music does the user like?", 9),
    ],
    "zh": [
        ("我平时喜欢什么运动?", 0),
        ("用户平时喜欢什么运动?", 0),
        ("我有宠物吗?", 1),
        ("用户有宠物吗?", 1),
        ("我是做什么工作的?", 2),
        ("用户是做什么工作的?", 2),
        ("我现在住在哪里?", 3),
        ("用户现在住在哪个城市?", 3),
        ("我喜欢什么样的天气?", 4),
        ("用户喜欢什么样的天气?", 4),
        ("春天我要注意什么?", 5),
        ("用户对什么过敏?", 5),
        ("我最近有什么不顺心的事?", 6),
        ("用户最近遇到过什么挫折?", 6),
        ("我有孩子吗?", 7),
        ("用户有孩子吗?", 7),
        ("我爱喝什么?", 8),
        ("用户喜欢喝什么饮料?", 8),
        ("我开什么车?", 9),
        ("用户的车是什么牌子的?", 9),
    ],
}
UNANSWERED = {
    "en": [
        "What is my favourite colour?", "Where did I park my car?",
        "When is my dentist appointment?", "What is the user's phone number?",
        "Do I speak French?", "What did I have for breakfast today?",
        "What is the user's shoe size?", "Which university did I go to?",
    ],
    "zh": [
        "我的生日是哪天?", "我会弹钢琴吗?", "我上周去哪里旅游了?", "用户的电话号码是多少?",
        "我大学读的什么专业?", "用户的鞋码是多少?", "我昨天晚饭吃了什么?", "我会说法语吗?",
    ],
}  # fmt: skip
OTHERS = {
    "en": [
        "What does John like to eat?",
        "Does Maria have a pet?",
        "What is Peter's job?",
        "Where does Emma live?",
        "Which films does Tom dislike?",
        "Is Lucy allergic to anything?",
        "Has Mark ever run a marathon?",
        "What music does Sarah enjoy?",
        "<John>: I finally ran my first marathon!\n<Assistant>: Congratulations!\n"
        "<John>: Thanks, my legs still hurt. Next I want to adopt a dog.",
        "<Maria>: I can't stand horror movies.\n<Assistant>: What do you watch instead?\n"
        "<Maria>: Mostly jazz concerts, and I cook sushi at home.",
    ],
    "zh": [
        "Lisa平时喜欢什么运动?",
        "Tom有宠物吗?",
        "Emma是做什么工作的?",
        "Mark现在住在哪里?",
        "Lucy对什么过敏?",
        "Peter有孩子吗?",
        "Sarah爱喝什么?",
        "Jack开什么车?",
        "<Lisa>: 我最近搬家到上海了\n<Assistant>: 新家怎么样?\n<Lisa>: 挺好的，就是下雨天太多",
        "<Tom>: 我家的猫总是掉毛\n<Assistant>: 可以常给它梳毛\n<Tom>: 好的，我每天游泳回来就梳",
    ],
}
"""Questions about other people (named in Latin script, as the dev sets name theirs;
the last two pasted conversations), asked of the same memory: about a stranger to it."""
NAMES: dict[str, tuple[str, str, str, str, dict[str, str]]] = {
    "en": ("user", "fact", "name", "Alice", {}),
    "zh": ("我", "事实", "名字", "小芳", {}),
}
"""What the owner is called, recorded as an agent records it (``OWNER_NAME_TOPICS``)."""
OWNER_BY_NAME = {"en": ("What does Alice like to eat?", 0), "zh": ("小芳喜欢喝什么?", 8)}


OTHERS_IN_CHINESE = [
    "小丽平时喜欢什么运动?", "王伟有宠物吗?", "陈静是做什么工作的?", "刘洋现在住在哪里?",
    "小红对什么过敏?", "张三有孩子吗?", "李明爱喝什么?", "阿强开什么车?",
    "约翰平时喜欢什么运动?", "汤姆有宠物吗?", "威廉是做什么工作的?", "玛丽现在住在哪里?",
    "安娜对什么过敏?", "乔治有孩子吗?", "彼得爱喝什么?", "凯特开什么车?",
]  # fmt: skip
"""Questions about other people named in Chinese characters, as Chinese users name
theirs (the facts of ``OTHERS["zh"]``), asked of the Chinese memories: eight Chinese
names, then the same eight questions about foreign names written for their sound."""


def about_others(mp: MemoryPlatform, user: str, language: str) -> str:
    """The direct results per question about other people, and for Chinese, per question
    naming them in Chinese characters."""
    line = f"questions about other people: {direct_per_question(mp, user, OTHERS[language]):.2f}"
    if language == "zh":
        per = direct_per_question(mp, user, OTHERS_IN_CHINESE)
        line += f" (named in Chinese characters: {per:.2f})"
    return line


def direct_per_question(mp: MemoryPlatform, user: str, questions: list[str]) -> float:
    """Direct results per question."""
    found = [
        sum(r.layer == "direct" for r in mp.search(user, q, record_access=False)) for q in questions
    ]
    return sum(found) / len(found)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "owner.db")
        with MemoryPlatform(settings) as mp:
            user = "owner-questions"
            ids: dict[str, list[str]] = {}
            for language, memories in MEMORIES.items():
                ids[language] = [
                    mp.create_memory(user, s, t, topic, obj, attributes)
                    for s, t, topic, obj, attributes in memories
                ]
            mp.wait_for_indexing()
            for language, questions in QUESTIONS.items():
                found = first = 0
                for question, index in questions:
                    results = mp.search(user, question, record_access=False)
                    direct = [r.id for r in results if r.layer == "direct"]
                    found += ids[language][index] in direct
                    first += direct[:1] == [ids[language][index]]
                unanswered = [
                    sum(r.layer == "direct" for r in mp.search(user, q, record_access=False))
                    for q in UNANSWERED[language]
                ]
                print(
                    f"{language}: found directly {found} of {len(questions)} (first {first}); "
                    f"questions nothing answers: {sum(unanswered) / len(unanswered):.2f} "
                    f"direct results each; {about_others(mp, user, language)}"
                )
            for s, t, topic, obj, attributes in NAMES.values():
                mp.create_memory(user, s, t, topic, obj, attributes)
            mp.wait_for_indexing()
            for language, questions in QUESTIONS.items():
                found = sum(
                    ids[language][index]
                    in [
                        r.id for r in mp.search(user, q, record_access=False) if r.layer == "direct"
                    ]
                    for q, index in [*questions, OWNER_BY_NAME[language]]
                )
                print(
                    f"{language}, the owner's name recorded ({NAMES[language][3]}): "
                    f"found directly {found} of {len(questions) + 1} (one question names the "
                    "owner); questions nothing answers: "
                    f"{direct_per_question(mp, user, UNANSWERED[language]):.2f}; "
                    f"{about_others(mp, user, language)}"
                )
            every = [memory_id for language_ids in ids.values() for memory_id in language_ids]
            texts = {m.id: m.text for m in mp.store.get_memories(user, every)}
            notes_leg(mp, {language: [texts[i] for i in ids[language]] for language in ids})
            notes_leg(mp, SUBJECTLESS, "with no subject")
            notes_leg(mp, POSSESSIVE, "about what is the owner's")
            notes_leg(mp, UNOWNED, "about what is the owner's, without my")


SUBJECTLESS = {
    "en": [
        "Favourite food is sushi", "Adopted a dog named Rex in October 2025",
        "Works as a software engineer", "Lives in Berlin", "Dislikes horror movies",
        "Ran a marathon in April 2024", "Allergic to peanuts", "Has a sister named Anna",
        "Broke left arm in January 2024", "Likes jazz music",
    ],
    "zh": [
        "喜欢的运动是游泳", "养了一只猫", "工作是老师", "2025年3月搬家到上海", "讨厌下雨天",
        "对花粉过敏", "2025年6月考试没通过", "女儿三岁了", "喜欢喝绿茶", "开的车是特斯拉",
    ],
}  # fmt: skip
"""The same ten facts per language as notes that leave the user out, as agents often
write them (a noun phrase, "Favourite food is sushi", names no subject either)."""


POSSESSIVE = {
    "en": [
        "My favourite food is sushi", "My dog Rex joined the family in October 2025",
        "My job: software engineer", "My home is in Berlin",
        "My least favourite films are horror movies", "My first marathon was in April 2024",
        "My allergy: peanuts", "My sister is called Anna",
        "My left arm was broken in January 2024", "My favourite music is jazz",
    ],
    "zh": [
        "我最喜欢的运动是游泳", "我的猫是去年养的", "我的工作是老师", "我的新家在上海",
        "我最讨厌的天气是下雨天", "我的过敏原是花粉", "我的考试没通过", "我的女儿三岁了",
        "我最爱的饮料是绿茶", "我的车是特斯拉",
    ],
}  # fmt: skip
"""The same ten facts per language as notes about what is the owner's ("My sister is
called Anna", 我的车是特斯拉)."""


UNOWNED = {
    language: [re.sub(r"^(?:My (.)|我的|我)", lambda m: (m[1] or "").upper(), n) for n in notes]
    for language, notes in POSSESSIVE.items()
}
"""The same notes without "My" / 我的 ("Sister is called Anna", "Job: software
engineer"), as notes that leave the owner out often read."""


def notes_leg(mp: MemoryPlatform, texts: dict[str, list[str]], kept: str = "as notes") -> None:
    """The same facts kept as notes (episodes with no speaker, as the LangGraph store
    keeps its values), each the text its memory reads as ("user favourite food sushi",
    "我 喜欢的运动 游泳") or as ``texts`` gives them, in a memory of their own, asked the
    same questions."""
    for language, questions in QUESTIONS.items():
        user = f"owner-notes-{language}-{kept.replace(' ', '-')}"
        ids = mp.add_episodes(user, [{"text": text} for text in texts[language]])
        mp.wait_for_indexing()
        found = first = 0
        for question, index in questions:
            direct = [
                r.id for r in mp.search(user, question, record_access=False) if r.layer == "direct"
            ]
            found += ids[index] in direct
            first += direct[:1] == [ids[index]]
        print(
            f"{language}, {kept}: found directly {found} of {len(questions)} (first {first}); "
            "questions nothing answers: "
            f"{direct_per_question(mp, user, UNANSWERED[language]):.2f} direct results each"
        )


if __name__ == "__main__":
    main()

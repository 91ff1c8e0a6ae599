"""The gloss of a question into the other of Chinese and English (``retrieval/gloss.py``):
what it says, the glossaries cached for later processes, and the search that falls back on
it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from memory_platform import MemoryPlatform, Settings
from memory_platform.embeddings import Embedder, query_text
from memory_platform.retrieval import gloss
from memory_platform.retrieval import retriever as retriever_module
from memory_platform.retrieval.gloss import chinese_gloss, english_gloss
from memory_platform.textutil import has_cjk
from tests.support.openai_stub import OpenAIStub

USER = "bilingual"
TOLD = [
    "My husband snores loudly.",
    "I have been feeling anxious about my exam next week.",
    "My best friend from college is a lawyer now.",
    "I'm allergic to peanuts.",
    "I work as a nurse at the city hospital.",
    "We are moving to a new flat in June.",
]
TOLD_ZH = [
    "我老公打呼噜很响。",
    "我奶奶教我包饺子。",
    "我对下周的考试感到很焦虑。",
    "我在市医院当护士。",
]


def test_a_word_the_dictionary_holds_only_as_a_proper_noun_is_one() -> None:
    assert gloss.proper_noun("约翰") is True  # John
    assert gloss.proper_noun("迪士尼") is True  # Disney
    assert gloss.proper_noun("谢谢") is False  # thank, in the characters of foreign names
    assert gloss.proper_noun("麦克") is False  # microphone first, Mike after
    assert gloss.proper_noun("丽莎") is None  # not held


def test_a_name_is_written_in_the_other_script_as_the_dictionary_pairs_them() -> None:
    assert gloss.english_names("汤姆") == ["Tom"]
    assert gloss.english_names("玛丽") == ["Mary", "Marie"]  # "Mary or Marie"
    assert gloss.english_names("周杰伦") == ["Jay Chou"]
    assert gloss.english_names("谢谢") == []  # a common word first
    assert gloss.english_names("丽莎") == []  # not held
    assert gloss.chinese_names_for("John")[:2] == ["约翰", "約翰"]  # simplified first
    assert "大卫" in gloss.chinese_names_for("david")
    assert "玛丽" in gloss.chinese_names_for("Mary")  # "Mary or Marie (name)"
    assert gloss.chinese_names_for("Jay Chou") == ["周杰伦", "周杰倫"]
    assert gloss.chinese_names_for("Berlin") == ["柏林"]  # a place; not 柏林围墙
    assert gloss.chinese_names_for("Bart") == []
    assert all(len(gloss.chinese_names_for(n)) <= gloss.FORMS_PER_NAME for n in ("Mary", "Tom"))


def test_a_list_of_names_is_none_of_them_and_a_place_is_its_name() -> None:
    """张三李四 is "Tom, Dick and Harry", anybody: not Tom, whom 汤姆 is (Yunnan was
    云贵川 and 滇藏川, lists of provinces, where 云南 said "Yunnan province in southwest
    China", too long to be read)."""
    assert gloss.english_names("张三李四") == []
    assert "张三李四" not in gloss.chinese_names_for("Tom")
    assert gloss.english_names("云南") == ["Yunnan"]  # "Yunnan province in southwest China"
    assert gloss.chinese_names_for("Yunnan") == ["云南"]
    assert gloss.english_names("上海") == ["Shanghai"]  # "Shanghai municipality"
    assert "成都" in gloss.chinese_names_for("Chengdu")  # "Chengdu subprovincial city"
    assert gloss.chinese_names_for("New York") == ["纽约"]  # among york's: 约克, 纽约
    assert gloss.chinese_names_for("Hong Kong") == ["香港"]  # as a whole: hong's are people
    assert gloss.english_names("港澳台") == []  # "Hong Kong 香港, Macao 澳門|澳门 and Taiwan"
    assert gloss.english_names("肖恩") == ["Sean"]  # "Sean, Shaun or Shawn": one name
    assert gloss.chinese_names_for("Taipei")[:1] == ["台北"]  # "Taibei or Taipei"
    # a slur is never given for an English word ("(derog.) Korea": 棒国)
    assert "棒" not in (gloss.chinese_gloss("What did I eat in Korea?") or "")
    assert "俄国人" in (gloss.chinese_gloss("Is my neighbour Russian?") or "")  # not 毛子
    # a name read out of its ways of writing is no English word's first ("Said or Saidi")
    assert "赛义迪" not in (gloss.chinese_gloss("What has she said?") or "")
    assert "旧金山" in gloss.chinese_names_for("San Francisco")
    # a place's name is no English word's first Chinese ("Mile county", 弥勒)
    assert "英里" in (gloss.chinese_gloss("How many miles do I run every week?") or "")
    assert "弥勒" not in (gloss.chinese_gloss("How many miles do I run every week?") or "")


def test_a_name_the_dictionary_holds_as_no_person_is_a_thing() -> None:
    """Places, countries and brands are names, but no people: a question about the owner
    may name them without asking about a stranger. The dictionary says what they are
    ("Boston, capital of Massachusetts", "Disney (company name, surname)"), or jieba tags
    them a place or a brand (日本, 耐克); a name it gives as no more than a name may be a
    person's (查尔斯 "Charles", 露西 "Lucy"), and so may a name it lacks."""
    things = ("Chengdu", "Japan", "New York", "Disney", "Boston", "Berlin", "Nike", "成都", "日本")
    for name in things:
        assert gloss.names_no_person(name), name
    people = ("Henry", "Tom", "Jay Chou", "汤姆", "大卫", "Bart", "丽莎", "Python")
    bare = ("Charles", "Lucy", "Evan", "Nancy", "Edward", "Roger", "露西", "查尔斯")
    for name in (*people, *bare):
        assert not gloss.names_no_person(name), name


def test_a_name_written_in_several_ways_is_a_person_by_each() -> None:
    """ "Sean, Shaun or Shawn (name)", "Alan, Allen, Allan, Alain etc (name)", "(name)
    Terry": each way is the person's name, as "Mary or Marie" was; with a lifespan a
    comma is the name's order or a suffix, no second way ("Joseph Smith, Jr.")."""
    for name in ("Sean", "Shaun", "Shawn"):
        assert gloss.chinese_names_for(name) == ["肖恩"], name
    assert "阿兰" in gloss.chinese_names_for("Allan")
    assert gloss.chinese_names_for("Terry") == ["特利"]
    assert gloss.person_name("肖恩") and gloss.person_name("特利")
    assert not gloss.chinese_names_for("Jr.") and not gloss.chinese_names_for("Jr")


def test_a_word_the_dictionary_holds_first_as_a_persons_name_names_that_person() -> None:
    assert gloss.person_name("大卫") == "David"  # "David (name)"
    assert gloss.person_name("凯文") == "Kevin"  # "Kevin (person name)"
    assert gloss.person_name("周杰伦") == "Jay Chou"  # "Jay Chou (1979-), Taiwanese pop star"
    assert gloss.person_name("瑪麗") == "Mary or Marie"  # traditional characters too
    assert gloss.person_name("英文") is None  # "English (language)"
    assert gloss.person_name("巴黎") is None  # "Paris, capital of France": a place
    assert gloss.person_name("文革") is None  # "Cultural Revolution (1966-1976)": dated
    assert gloss.person_name("谢谢") is None


def test_a_chinese_question_is_glossed_word_by_word_and_the_rest_kept() -> None:
    allergy = english_gloss("我对什么过敏？")
    assert allergy is not None
    assert "allergic?" in allergy.split()  # Chinese punctuation as English writes it
    assert not any("\u4e00" <= c <= "\u9fff" for c in allergy)
    sister = english_gloss("我姐姐住在柏林吗？") or ""
    assert "sister" in sister and "Berlin" in sister  # a proper noun where no common word
    # the reading HSK gives first: 读 is "to read", not its other reading's "comma"
    assert (english_gloss("读") or "").split()[:1] == ["read"]
    # a word the dictionary lacks is cut into the words it holds
    assert english_gloss("元旦晚会") == "New Year's Day evening party"
    # speaker tags and Latin text as written
    tagged = english_gloss('<Bart>:"我喜欢咖啡"') or ""
    assert tagged.startswith('<Bart>:"') and tagged.split()[-2:] == ["coffee", '"']
    # traditional characters read as simplified; particles say nothing (呢 is no "woolen")
    assert "allergic?" in (english_gloss("我對什麼過敏？") or "").split()
    assert english_gloss("后来呢") == "afterwards later"
    assert english_gloss("What am I allergic to?") is None
    assert english_gloss("") is None


def test_an_english_question_becomes_the_chinese_words_of_its_words() -> None:
    """Each word that is not a stop word becomes its Chinese words, looked up as the small
    stemmer leaves it (dumplings, snores); a word the dictionary lacks is kept as written."""
    assert "过敏" in (chinese_gloss("What am I allergic to?") or "").split()
    dumplings = (chinese_gloss("Who taught Bart to make dumplings?") or "").split()
    assert "饺子" in dumplings and "Bart" in dumplings and "taught" in dumplings
    assert {"打呼", "打呼噜"} & set((chinese_gloss("Who snores?") or "").split())
    assert "姐姐" in (chinese_gloss("Where does my sister live?") or "").split()
    for negated in ("Why don't I like coffee?", "Why don’t I like coffee?"):
        assert chinese_gloss(negated) == chinese_gloss("Why do I like coffee?")
    assert chinese_gloss("我对什么过敏？") is None  # Chinese: glossed the other way
    assert chinese_gloss("What is it?") is None  # stop words only
    assert chinese_gloss("") is None


def test_a_name_the_dictionary_lacks_is_kept_not_glossed_by_its_characters() -> None:
    """小红 is a name, not "small red": the names logic reads it in either script."""
    said = english_gloss("小红喜欢什么？") or ""
    assert "小红" in said and "small" not in said and "like" in said
    assert english_gloss("小红？") is None  # nothing glossed: no second search to run


def _senses(word: str, name: str = "glossary") -> list[str]:
    glossary = gloss._glossary(name)
    assert glossary is not None
    return (glossary.get(word) or "").split("\t")


def test_a_word_is_glossed_by_its_usual_reading_in_either_form() -> None:
    """The entries of a word of several readings come in no telling order: HSK's reading
    first, for its traditional form too (讀 "read", not its other reading's "comma"); a
    form's own entries before those of the words it is the other form of (宁 "peaceful",
    not "store", which 宁 writes as a traditional character); then the dictionary's order
    (什 "what", not "ten"); senses of the next entry where the first has too few (丑:
    "clown", then 醜's "shameful")."""
    assert english_gloss("讀") == "read study"
    assert english_gloss("說") == "speak say"
    assert english_gloss("會") == "can be possible"
    assert english_gloss("結果") == english_gloss("结果") == "outcome result"
    assert _senses("宁")[0] == "peaceful"
    assert _senses("榜")[0] == "notice or announcement"
    assert _senses("什")[0] == "what" and _senses("中")[0] == "within"
    assert _senses("丑") == ["clown", "shameful"]


def test_a_usage_note_is_no_sense_whatever_remark_comes_before_it() -> None:
    """ "(Tw) (coll.) variant of 夠|够", "(Tw) abbr. for …", "Japanese variant of 乘": notes,
    not senses (构 was glossed "variant of |", 国企 "state enterprise abbr. for |"); no
    word's senses repeat or are empty, none is a note or holds what was cut out of one."""
    assert english_gloss("构") == "reach by stretching construct"
    assert english_gloss("国企") == "state enterprise"
    assert _senses("乗") == [""]  # "Japanese variant of 乘"
    source = gloss._dictionary_file()
    assert source is not None
    table = gloss._read(source, gloss._hsk_readings(source.parents[1] / gloss._HSK))
    for word, senses in table.items():
        said = senses.split("\t")
        assert len(said) == len(set(said)) <= gloss.SENSES_PER_WORD, word
        for sense in said:
            assert sense and "|" not in sense and "variant of" not in sense, (word, sense)
            assert sense.count(" ") < 3, (word, sense)  # a long explanation is no sense


def test_an_accented_word_is_one_word_both_ways() -> None:
    """Accents are dropped, not the letters they sit on: "fiancée" was "fianc e", and "e"
    an English word for 未婚妻 (an e-mail then asked about a fiancée and hepatitis E)."""
    assert english_gloss("未婚妻") == "fiancee"
    assert chinese_gloss("Who is my fiancée?") == "未婚妻"
    e_mail = (chinese_gloss("What is my e-mail address?") or "").split()
    assert "地址" in e_mail and not {"未婚妻", "戊型肝炎", "刘鹗"} & set(e_mail)
    assert "咖啡馆" in (chinese_gloss("What did I eat at the café?") or "").split()


def test_the_english_glossary_keys_words_and_names_of_two_words() -> None:
    """Stop words and letters are no keys, and a phrase is a key only where it is a name
    (hong kong, not older sister); an English word's common Chinese words come first
    (Friday: 星期五, not 主麻, a name read out of "Jumma or Jummah"); a name's simplified
    forms come before the traditional ones."""
    for not_a_key in ("the", "e", "older sister"):
        assert _senses(not_a_key, "english") == [""], not_a_key
    assert "香港" in _senses("hong kong", "english")
    assert chinese_gloss("Friday") == "星期五 礼拜五"
    assert gloss.chinese_names_for("Gates")[:2] == ["盖茨", "盖兹"]
    assert gloss.chinese_names_for("Julia") == ["朱利娅", "朱莉娅", "朱丽亚", "茱莉亚"]


def test_a_common_word_is_no_thing_for_a_proper_nouns_sense() -> None:
    """狮子 is a lion before it is Leo, 孙子 a grandson before Sun Tzu: the things table
    reads a word's first entry, HSK's reading first, as the glossary does."""
    for word in ("狮子", "獅子", "孙子"):
        assert _senses(word, "things") == [""], word
    assert _senses("巴黎", "things") == ["Paris"]


def test_the_code_a_glossary_is_read_by_names_it() -> None:
    """Both files the glossaries are read by are hashed into their cached name: a digest
    of nothing would map a glossary older code wrote."""
    assert [p.name for p in gloss._BUILT_BY] == ["gloss.py", "textutil.py"]
    assert all(p.is_file() for p in gloss._BUILT_BY)
    assert gloss._code_digest() != ""


def test_without_the_dictionary_nothing_is_glossed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``prepare`` reports the glossaries missing, and a search goes on without a gloss."""
    assert gloss.load_glossaries() is True
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(gloss, "_tables", {})
    assert gloss.load_glossaries() is False
    assert english_gloss("我对什么过敏？") is None
    assert chinese_gloss("What am I allergic to?") is None
    assert gloss.proper_noun("约翰") is None and gloss.chinese_names_for("John") == []


@pytest.mark.parametrize(
    ("name", "known", "unknown"),
    [
        ("glossary", ["过敏", "读", "柏林", "我", "過敏"], ["Bart", "\u4e00\u4e00\u4e00"]),
        ("english", ["allergic", "dumpling", "sister", "berlin"], ["bart", "the", "过敏"]),
    ],
)
def test_each_glossary_is_cached_once_and_mapped_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, known: list[str], unknown: list[str]
) -> None:
    """The first process reads the dictionary and writes the glossary; the next maps it,
    and finds what the dictionary says (words at both ends of the sorted file too), as
    does a process with the cache off, which builds it in memory. A cached file of
    another format is not used but written again."""
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    first = gloss._load(name)
    (cached,) = tmp_path.glob(f"cedict-{name}-*.tsv")
    written = cached.stat().st_mtime_ns
    mapped = gloss._load(name)
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", "")
    in_memory = gloss._load(name)
    source = gloss._dictionary_file()
    assert source is not None
    reader = gloss._READERS[name][0]
    read = reader(source, gloss._hsk_readings(source.parents[1] / gloss._HSK))
    assert cached.stat().st_mtime_ns == written  # mapped, not written again
    assert list(tmp_path.iterdir()) == [cached]
    words = sorted(read, key=lambda w: w.encode())
    for glossary in (first, mapped, in_memory):
        assert glossary is not None
        for word in [*words[:3], *words[-3:], *known]:
            assert glossary.get(word) == read[word]
        assert all(glossary.get(word) is None for word in unknown)
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    cached.write_bytes(b"something else\n")
    again = gloss._load(name)
    assert again is not None and again.get(known[0]) == read[known[0]]
    assert cached.read_bytes().startswith(gloss._HEADER)


def _platform(tmp_path: Path, embedder: Embedder, **settings: object) -> MemoryPlatform:
    return MemoryPlatform(
        Settings(sqlite_path=tmp_path / "m.db", _env_file=None, **settings),  # type: ignore[arg-type]
        embedder=embedder,
    )


def _tell_in(mp: MemoryPlatform, told: list[str], user: str = USER) -> None:
    for i, said in enumerate(told):
        mp.add_messages(user, f"s{i}", [{"role": "user", "content": said}])
    assert mp.wait_for_indexing(user)


def _direct(mp: MemoryPlatform, question: str) -> list[str]:
    return [r.text for r in mp.search(USER, question, record_access=False) if r.layer == "direct"]


def test_a_chinese_question_finds_what_was_told_in_english_through_its_gloss(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Without an LLM, a Chinese question that finds nothing as asked is searched again as
    glossed; with the gloss turned off it finds nothing. A question that found something
    as asked is not glossed, and one about nothing told still finds nothing."""
    with _platform(tmp_path / "off", embedder, retrieval={"english_gloss": False}) as mp:
        _tell_in(mp, TOLD)
        unglossed = [_direct(mp, "谁打呼噜？"), _direct(mp, "我为什么焦虑？")]
    with _platform(tmp_path / "on", embedder) as mp:
        _tell_in(mp, TOLD)
        glossed = [_direct(mp, "谁打呼噜？"), _direct(mp, "我为什么焦虑？")]
        nothing = [_direct(mp, "量子力学是什么？"), _direct(mp, "我的狗叫什么名字？")]
        in_english = _direct(mp, "What am I allergic to?")
        embedded = mp._recent_vectors  # type: ignore[attr-defined]
        searched = [
            embedded.asked(USER, query_text(english_gloss(q) or "")) for q in ("谁打呼噜？", "What")
        ]
    assert unglossed == [[], []]
    assert [found[:1] for found in glossed] == [[TOLD[0]], [TOLD[1]]]
    assert nothing == [[], []]
    assert in_english[:1] == [TOLD[3]]
    assert searched == [True, False]  # an English question has no gloss


def test_an_llm_translation_is_searched_instead_of_the_gloss(
    tmp_path: Path, embedder: Embedder
) -> None:
    """With an LLM planner, its translation is the second search, and the last: the
    gloss, a rougher translation, comes only where the planner gave none."""
    with OpenAIStub() as stub:
        settings = {"llm_base_url": stub.base_url, "llm_max_retries": 1}
        with _platform(tmp_path, embedder, **settings) as mp:
            _tell_in(mp, TOLD)
            plan = {"semantic_query": "谁打呼噜？", "expand_depth": 0}
            stub.reply(json.dumps(plan | {"other_language_query": "What is my job?"}))
            translated = _direct(mp, "谁打呼噜？")
            stub.reply(json.dumps(plan | {"other_language_query": "Who won the 1998 World Cup?"}))
            translated_to_nothing = _direct(mp, "谁打呼噜？")
            stub.reply(json.dumps(plan))
            untranslated = _direct(mp, "谁打呼噜？")
    assert translated[:1] == [TOLD[4]]  # the planner's translation, whatever it says
    assert translated_to_nothing == []  # a translation that finds nothing is not glossed after
    assert untranslated[:1] == [TOLD[0]]  # no translation: the gloss


@pytest.mark.parametrize(
    ("glossing", "question", "shown"),
    [
        ("english_gloss", "量子力学是什么？", "en"),
        ("chinese_gloss", "What is quantum physics?", "zh"),
    ],
)
def test_a_glossed_search_shows_only_what_was_told_in_the_language_glossed_into(
    tmp_path: Path,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
    glossing: str,
    question: str,
    shown: str,
) -> None:
    """An item in the question's own language was judged by the question as asked; the
    gloss, meant for what was told in the other language, does not get a second say on
    it. Here the "gloss" is made to say one memory or the other word for word: the search
    shows the memory in the language glossed into, not the one the gloss repeats."""
    said = {"zh": "我对花生过敏。", "en": "I'm allergic to peanuts."}
    with _platform(tmp_path, embedder) as mp:
        for i, text in enumerate(said.values()):
            mp.add_messages(USER, f"s{i}", [{"role": "user", "content": text}])
        assert mp.wait_for_indexing(USER)
        found = {}
        for language, text in said.items():
            monkeypatch.setattr(retriever_module, glossing, lambda _q, text=text: text)
            found[language] = _direct(mp, question)
    assert found == {"zh": [said[shown]], "en": [said[shown]]}


def test_an_english_question_finds_what_was_told_in_chinese_through_its_gloss(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Without an LLM, an English question that finds nothing as asked is searched again
    as the Chinese words of its words; with that turned off it finds nothing. One about
    nothing told still finds nothing."""
    questions = ["Who snores?", "Who taught me to make dumplings?"]
    with _platform(tmp_path / "off", embedder, retrieval={"chinese_gloss": False}) as mp:
        _tell_in(mp, TOLD_ZH)
        unglossed = [_direct(mp, q) for q in questions]
    with _platform(tmp_path / "on", embedder) as mp:
        _tell_in(mp, TOLD_ZH)
        glossed = [_direct(mp, q) for q in questions]
        nothing = [_direct(mp, "What is quantum mechanics?"), _direct(mp, "Is it raining?")]
    assert unglossed == [[], []]
    assert [found[:1] for found in glossed] == [[TOLD_ZH[0]], [TOLD_ZH[1]]]
    assert nothing == [[], []]


def test_a_question_whose_every_match_is_told_in_the_other_language_is_asked_in_it(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A question that finds its fact only among what was told in the other language
    (here through the name both say, Tom and 汤姆) is asked again in that language, and
    the fact comes back as relevant as a question in that language would find it. A
    memory that answers in the question's own language is not asked again."""
    question = "What food does Tom love?"
    fact = "汤姆很喜欢吃寿司。"
    glossed = query_text(chinese_gloss(question) or "")

    def found(mp: MemoryPlatform, user: str = USER) -> list[tuple[str, float, float]]:
        results = mp.search(user, question, record_access=False)
        return [(r.text, r.relevance, r.components.lexical) for r in results if r.layer == "direct"]

    off = {"chinese_gloss": False, "english_gloss": False}
    with _platform(tmp_path / "off", embedder, retrieval=off) as mp:
        _tell_in(mp, [fact, *TOLD_ZH])
        as_asked = found(mp)
    with _platform(tmp_path / "on", embedder) as mp:
        _tell_in(mp, [fact, *TOLD_ZH])
        _tell_in(mp, [fact, *TOLD_ZH, "Tom loves sushi."], user="both")
        asked_again = found(mp)
        cache = mp._recent_vectors  # type: ignore[attr-defined]
        glossed_for_chinese = cache.asked(USER, glossed)
        in_both = found(mp, "both")
        glossed_for_both = cache.asked("both", glossed)
    assert [(text, lexical) for text, _, lexical in as_asked[:1]] == [(fact, 1.0)]  # Tom, 汤姆
    assert asked_again[:1] and asked_again[0][0] == fact and glossed_for_chinese
    assert asked_again[0][1] > as_asked[0][1]
    assert in_both[:1] and in_both[0][0] == "Tom loves sushi." and not glossed_for_both


def test_a_question_answered_only_in_the_other_language_is_asked_as_the_llm_translates(
    tmp_path: Path, embedder: Embedder
) -> None:
    """With an LLM planner, the question whose every match is told in the other language
    is asked again as the planner translates it, not as glossed."""
    question, translation = "What food does Tom love?", "汤姆喜欢吃什么食物？"
    with OpenAIStub() as stub:
        settings = {"llm_base_url": stub.base_url, "llm_max_retries": 1}
        with _platform(tmp_path, embedder, **settings) as mp:
            _tell_in(mp, ["汤姆很喜欢吃寿司。", *TOLD_ZH])
            plan = {"semantic_query": question, "expand_depth": 0}
            stub.reply(json.dumps(plan | {"other_language_query": translation}))
            found = _direct(mp, question)
            cache = mp._recent_vectors  # type: ignore[attr-defined]
            searched = [
                cache.asked(USER, query_text(q))
                for q in (translation, chinese_gloss(question) or "")
            ]
            asked = stub.chat_requests()
    assert found[:1] == ["汤姆很喜欢吃寿司。"]
    assert searched == [True, False]
    assert asked == 1


def test_matches_told_in_both_languages_are_ranked_across_them_by_relevance(
    tmp_path: Path, embedder: Embedder
) -> None:
    """One memory of both languages: the lexical channel cannot read a Chinese text for
    an English question, so strength ranks the two languages on different scales. The
    matches are taken from whichever language's next is the more relevant, each
    language's in its own order: the Chinese answer before an English near miss that
    shares words with the question and outscores it."""
    told = [
        "My knee hurts when I climb stairs.",
        "我儿子踢足球时摔断了胳膊。",
        "I work as a nurse at the city hospital.",
        "我买了一台新的工作用笔记本电脑。",
        "My husband snores loudly.",
        "我奶奶教我包饺子。",
    ]
    with _platform(tmp_path, embedder) as mp:
        _tell_in(mp, told)
        found = {
            question: [r for r in mp.search(USER, question, record_access=False)]
            for question in ("How did my son get hurt?", "What did I buy for work?")
        }
    for question, answer in zip(found, (told[1], told[3]), strict=True):
        direct = [r for r in found[question] if r.layer == "direct"]
        assert direct[0].text == answer, question
        english = [r.score for r in direct if not has_cjk(r.text)]
        assert english and direct[0].score < english[0]  # outscored, and more relevant
        assert direct[0].relevance > max(r.relevance for r in direct[1:])
        for language in (True, False):  # each language's in its own order
            scores = [r.score for r in direct if has_cjk(r.text) is language]
            assert scores == sorted(scores, reverse=True)


def test_a_memory_holding_no_word_of_the_chinese_gloss_is_not_searched_again(
    tmp_path: Path, embedder: Embedder
) -> None:
    """An English memory holds no Chinese word: an English question that finds nothing
    in it is not embedded and searched a second time as its gloss, where a memory told
    in Chinese that holds a word of the gloss is."""
    question = "Who taught me to make dumplings?"
    glossed = query_text(chinese_gloss(question) or "")
    with _platform(tmp_path, embedder) as mp:
        _tell_in(mp, TOLD)
        _tell_in(mp, TOLD_ZH, user="chinese")
        cache = mp._recent_vectors  # type: ignore[attr-defined]
        assert mp.search(USER, question, record_access=False) == []
        in_english = cache.asked(USER, glossed)
        found = mp.search("chinese", question, record_access=False)
        in_chinese = cache.asked("chinese", glossed)
    assert (in_english, in_chinese) == (False, True)
    assert [r.text for r in found][:1] == [TOLD_ZH[1]]


def test_a_glossed_question_names_the_people_it_named_as_asked(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The gloss says John as 约翰 若望, which names no one: the people a glossed
    question is about are read from the question as asked. The memory knows its owner
    as Alice, so a question about John is about a stranger to it, glossed or not."""
    with _platform(tmp_path, embedder) as mp:
        mp.create_memory(USER, "user", "fact", "name", "Alice")
        mp.create_memory(USER, "我", "观点", "喜欢", "吃火锅")
        assert mp.wait_for_indexing(USER)
        about_the_owner = _direct(mp, "What do I like to eat?")
        about_john = _direct(mp, "What does John like to eat?")
    assert about_the_owner[:1] == ["我 喜欢 吃火锅"]
    assert about_john == []


def test_a_glossary_other_code_wrote_is_not_mapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached glossary is named by the code that read it from the dictionary too: a
    change of that code that forgot to bump the header still reads the dictionary again,
    where the old file would have been mapped."""
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    assert gloss._load("english") is not None
    monkeypatch.setattr(gloss, "_code_digest", lambda: "the next version's")
    assert gloss._load("english") is not None
    assert len(list(tmp_path.glob("cedict-english-*.tsv"))) == 2

"""Whose a memory's notes are: the name most of them begin with (``note_subjects``)."""

from __future__ import annotations

from memory_platform.retrieval.note_subjects import (
    begins_in_first_person,
    begins_with_a_field,
    begins_with_owners,
    begins_without_subject,
    note_begins_with,
    note_subject,
    notes_name_their_person,
    notes_person,
)


def test_a_note_begins_with_a_name_in_either_script() -> None:
    assert note_subject("Bart在圣诞节晚会上跳舞，感觉非常开心。") == "Bart"
    assert note_subject("小红在学校的体育节上获得第一名。") == "小红"
    assert note_subject("王小明很开心。") == "王小明"
    assert note_subject("莉莎在学校里玩。") == "莉莎"  # jieba cuts it: 莉, 莎, both names
    assert note_subject("张伟和李明在踢球。") == "张伟"  # a conjunction ends the name
    assert note_subject("Caroline's friends threw a party.") == "Caroline"
    for text in (
        "我今天很开心。",  # the owner
        "用户喜欢喝茶。",
        "爸爸送给Bart一辆自行车。",  # a name, but not the subject
        "在公园散步。",  # no subject
        "User likes tea.",
        "I went out.",
        "The party was fun.",  # a stop word
        "May was cold.",  # a month
        "",
    ):
        assert note_subject(text) is None, text


def test_notes_name_their_person_when_most_begin_with_one_name() -> None:
    assert notes_person(["Bart跳舞。", "Bart吃冰淇淋。", "爸爸送了礼物。"]) == "bart"
    assert notes_person(["小红跳舞。", "小红唱歌。", "Bart来了。"]) == "小红"
    assert notes_person(["Bart跳舞。", "爸爸送了礼物。"]) is None
    assert notes_name_their_person(["Bart跳舞。", "Bart吃冰淇淋。", "爸爸送了礼物。"])
    assert notes_name_their_person(["小红跳舞。", "小红唱歌。", "Bart来了。"])
    assert not notes_name_their_person(["Bart跳舞。", "爸爸送了礼物。"])  # half is not most
    assert not notes_name_their_person(["Bart跳舞。", "小红唱歌。", "Lisa来了。"])
    assert not notes_name_their_person(["我跳舞了。", "今天很开心。"])
    assert not notes_name_their_person([])


def test_a_notes_person_may_follow_a_clause_of_when_or_where() -> None:
    """Notes that open with their date or place ("2023-12-25，Lisa在…") name their person
    as notes that open with the name do: a second MADial user written that way met ten
    results for each of Bart's dialogues before (`benchmarks/micro/two_users.py`)."""
    notes = [
        "2023-12-25，Lisa在圣诞节晚会上跳舞。",
        "今天，Lisa和妈妈一起去公园。",
        "在元旦晚会上，Lisa表演了魔术。",
        "2024-01-02 Lisa参加了运动会。",
        "On Monday, Lisa sang a song.",
    ]
    assert notes_person(notes) == "lisa"
    assert notes_person([note.replace("Lisa", "乐乐") for note in notes[:4]]) == "乐乐"
    assert note_begins_with("2023-12-25，Bart在公园里放风筝。", "Bart")
    assert note_begins_with("今天，小红在学校跳舞。", "小红")
    # time words may open a note with no comma after them
    no_comma = ["昨天Lisa在公园放风筝。", "去年夏天Lisa去了海边。", "圣诞节Lisa收到了礼物。"]
    assert notes_person(no_comma) == "lisa"
    assert notes_person(["上周小红生病了。", "今天小红去上学。", "昨天小红唱歌。"]) == "小红"
    assert notes_person(["今天很开心。", "昨天下雨了。", "周末去爬山。"]) is None
    assert notes_person(["今天我很开心。", "昨天我去了公园。", "周末我在家。"]) is None
    assert note_begins_with("周末Bart和妈妈去了动物园。", "Bart")
    # and so may a whole date, and not a number that is no date
    dates = ["2023-12-25Lisa在公园，她很开心。", "12月25日Lisa在跳舞。", "2023年1月2日，Lisa唱歌。"]
    assert notes_person(dates) == "lisa"
    assert notes_person(["3个苹果。", "1.5公斤。", "2个人。"]) is None
    # what follows the clause must still be the note's subject
    assert not note_begins_with("家庭聚会时，叔叔一直批评Bart。", "Bart")
    assert not note_begins_with("今天，我和Bart去了公园。", "Bart")
    # an owner who writes in the first person, or about a relative, stays unnamed
    for unnamed in (
        ["今天，我去了公园。", "昨天，我很开心。", "2024-01-02，我参加了运动会。"],
        ["昨天，妈妈带我去公园。", "今天，妈妈做了饭。", "周末，妈妈生病了。"],
        ["Yesterday, I went out.", "On Monday, I sang.", "Today, the user cooked."],
    ):
        assert notes_person(unnamed) is None, unnamed
    assert note_subject("Yesterday, I went out.") is None  # a clause, not a name
    # a clause that says who did what is no setting: notes in the first person that go on
    # to name a friend stay the owner's
    first_person = [
        "我和小红去公园，小红很开心。",
        "我在家看书，小红来了。",
        "妈妈送给我礼物，小红也来了。",
    ]
    assert notes_person(first_person) is None


def test_notes_name_a_chinese_person_jieba_does_not_know_by_what_most_of_them_share() -> None:
    starts = ("在圣诞节晚会上跳舞。", "和妈妈一起去公园。", "参加了运动会。", "喜欢吃冰淇淋。")
    # jieba takes 乐乐 for an adjective, 豆豆 for a noun, 可可 for a verb, 朵朵 for a
    # measure word and 张婷婷 for two words
    for name in ("乐乐", "豆豆", "可可", "朵朵", "张婷婷", "小美", "佳佳"):
        assert notes_person([name + start for start in starts]) == name, name
    # 冬冬 and 晨晨 are time words to it, 露西 a noun, 梓萱 one name-tagged character
    # and one untagged (children's names once missed: the owner left unnamed, or called 梓)
    for name in ("冬冬", "晨晨", "露西", "梓萱", "莉莎"):
        assert notes_person([name + start for start in starts]) == name, name
    # notes about a thing, a place, a relative, a time or the owner name nobody
    for notes in (
        ["学校举办了运动会。", "学校组织了春游。", "学校的食堂很好吃。"],
        ["北京的冬天很冷。", "北京下雪了。", "北京的烤鸭很好吃。"],
        ["妈妈做了红烧肉。", "妈妈生病了。", "妈妈送给我一本书。"],
        ["今天很开心。", "今天下雨了。", "今天去爬山。"],
        ["天天加班。", "天天下雨。", "天天吃外卖。"],
        ["常常去跑步。", "常常熬夜。", "常常忘记带伞。"],
        ["年年都去海边。", "年年过生日。", "年年种花。"],
        ["西安的冬天很冷。", "西安下雪了。", "西安的面很好吃。"],  # a place, not 西 and 安
        ["我在公园散步。", "我在家看电视。", "我在学校上课。"],
        ["用户喜欢喝茶。", "用户养了猫。", "用户是老师。"],
        ["在公园散步。", "在家看电视。", "在学校上课。"],
    ):
        assert notes_person(notes) is None, notes
    # one name in only half the notes is not most of them
    assert notes_person(["乐乐跳舞。", "学校开运动会。"]) is None


def test_notes_name_a_given_name_jieba_has_no_word_for_whatever_it_guesses_it_is() -> None:
    """Popular given names are not in jieba's dictionary: its HMM puts them together and
    tags them by a guess (思雨 and 诗涵 nouns, 佳怡 a verb). Words for relatives, friends and
    pets that jieba takes for names (老公, 宝宝) or lacks (闺蜜) still name no one."""
    starts = ("在圣诞节晚会上跳舞。", "和妈妈一起去公园。", "参加了运动会。", "喜欢吃冰淇淋。")
    for name in ("思雨", "诗涵", "佳怡", "梓涵", "若汐", "语桐"):
        assert notes_person([name + start for start in starts]) == name, name
        assert not begins_without_subject(name + starts[0]), name  # a name, not a verb
    for word in ("老公", "宝宝", "狗狗", "闺蜜", "猫咪", "公司"):
        assert notes_person([word + start for start in starts]) is None, word
    assert notes_person(["李阿姨" + start for start in starts]) == "李阿姨"  # a name with a role
    # jieba glues a name it does not know to the word after it: 张三在, 李华去, 思雨要
    for name in ("张三", "李华", "思雨", "王五"):
        glued = [name + rest for rest in ("在公园跳舞。", "去了学校。", "要去游泳。", "说很开心。")]
        assert notes_person(glued) == name, name
    # or to any verb on its own after it: 王伟有, 小丽住, 张三买
    for name in ("王伟", "小丽", "张三"):
        glued = [name + rest for rest in ("有一只猫。", "住在上海。", "买了新书。", "会弹钢琴。")]
        assert notes_person(glued) == name, name


def test_notes_that_begin_with_he_or_she_go_on_about_the_person_the_others_name() -> None:
    by_turns = ["Lisa在公园跳舞。", "她喜欢吃冰淇淋。", "今天，她去了学校。", "Lisa唱歌了。"]
    assert notes_person(by_turns) == "lisa"
    assert notes_person(["Tom went hiking.", "He likes tea.", "She called him."]) == "tom"
    assert notes_person(["乐乐跳舞。", "她很开心。", "她去了公园。"]) == "乐乐"
    # notes that name nobody, or the owner in the first person, still name no one
    assert notes_person(["她很开心。", "她去了公园。"]) is None
    assert notes_person(["我去了公园。", "我很开心。", "她来了。", "小红唱歌。"]) is None
    assert notes_person(["Lisa跳舞。", "小红唱歌。", "她来了。"]) is None
    assert notes_person(["Shelly went out.", "Shelly sang.", "Sheila came."]) == "shelly"


def test_a_note_begins_with_its_persons_name_in_any_case() -> None:
    assert note_begins_with("Bart在公园里放风筝。", "Bart")
    assert note_begins_with("bart went fishing.", "Bart") is False  # no capital: no name
    assert note_begins_with("Caroline went fishing.", "caroline")
    assert note_begins_with("乐乐在圣诞节晚会上跳舞。", "乐乐")  # no name to jieba
    assert note_begins_with("佳怡和同学们去公园。", "佳怡")  # jieba cuts it 佳, 怡和
    assert note_begins_with("今天，佳怡和同学们去公园。", "佳怡")
    assert not note_begins_with("Jimmy送给Bart一本漫画书。", "Bart")  # mentioned, not the subject
    assert not note_begins_with("我今天很开心。", "Bart")


def test_a_chinese_note_with_no_subject_is_the_writers_own() -> None:
    """Chinese leaves out who did it where that is the writer: a note that opens with what
    was done is the owner's, one that opens with a person is that person's."""
    for note in (
        "在圣诞节晚会上跳舞，感觉非常开心。",  # a preposition
        "与家人享用了美味的早餐。",
        "和同学们在公园玩捉迷藏。",  # a conjunction
        "因为搬家到一个新城市感到孤独。",
        "参加了学校的美术比赛。",  # a verb
        "一直很想要一个新的自行车。",  # an adverb
        "不小心打倒了水杯。",
        "今天，去动物园看到了大熊猫。",  # after a clause of when
        "在元旦晚会上，和同学们一起制作了灯笼。",  # and of where
        "Went to the park.",  # English too, by its table of verbs (test_english_verbs.py)
    ):
        assert begins_without_subject(note), note
    for note in (
        "我在公园散步。",  # the owner by a pronoun: it says so itself
        "他在公园散步。",
        "妈妈送给我一个玩具。",  # a relative
        "爸爸妈妈去了一家餐厅。",
        "小红在学校跳舞。",  # a name
        "Bart在圣诞节晚会上跳舞。",
        "阿黄在公园追逐小朋友。",
        "工作压力很大。",  # a verbal noun is what the note is about
        "学校的体育节很热闹。",
        "",
    ):
        assert not begins_without_subject(note), note


def test_a_note_that_opens_with_the_owners_possessive_is_about_the_owner() -> None:
    for note in ("My favourite food is sushi", "my dog is Rex", "User's job: nurse",
                 "The user’s sister is Anna", "Yesterday, my car broke down"):  # fmt: skip
        assert begins_with_owners(note), note
    for note in ("Myra likes tea", "Her dog is Rex", "Users like it", "Caroline's dog", "我的猫"):
        assert not begins_with_owners(note), note


def test_a_note_that_opens_as_a_records_field_is_the_owners() -> None:
    """A profile's field ("favorite food: sushi", 职业：老师) says whose it is nowhere: in
    the owner's memory it is the owner's, relatives included; a speaker's line, a name or
    someone else's pronoun as the field, or a sentence about someone as its value is not."""
    for note in ("favorite food: sushi", "allergies: peanuts, shellfish", "职业：老师",
                 "喜欢的运动: 游泳", "sister: Anna", "妈妈：护士", "汽车: 特斯拉",
                 "user name: Alice", "siblings: relation: sister, name: Anna"):  # fmt: skip
        assert begins_with_a_field(note), note
    for note in ("Caroline: I went home", "小明：今天去公园", "她：很好", "思雨：喜欢画画",
                 "妈妈说：今天下雨", "Lisa的日记：今天很开心", "friend: Anna likes tea",
                 "note: she is nice", "备注：她很好", "see http://example.com",
                 "http://example.com", "2023-12-25: Bart went home", "meeting at 3pm",
                 "Bart在圣诞节晚会上跳舞。", ""):  # fmt: skip
        assert not begins_with_a_field(note), note


def test_a_note_about_the_owners_relative_pet_or_field_is_the_owners() -> None:
    for note in ("Sister is called Anna", "Dog Rex joined the family", "Job: nurse",
                 "Mom's birthday is May 3", "allergies: peanuts"):  # fmt: skip
        assert begins_with_owners(note), note
        assert note_subject(note) is None, note
    for note in ("Dogs are loyal", "Homework is done", "Grace loves hiking"):
        assert not begins_with_owners(note), note


def test_a_chinese_note_its_writer_opens_is_the_owners() -> None:
    """我家, 我妈 and 我们 are one word each to the tokenizer, so a question's 我 is not
    among such a note's words: the note opening with its writer is what makes it the
    owner's, also after a clause of when. One that opens with someone else is not."""
    for note in ("我家的猫叫咪咪，三岁了", "我妈是一名护士", "我们去了公园", "我喜欢喝拿铁",
                 "昨天我家来了客人", "今天，我爸去上班了"):  # fmt: skip
        assert begins_in_first_person(note), note
    for note in ("Bart在公园里放风筝", "他家的猫叫咪咪", "妈妈说我家很好", "小明和我去了公园",
                 "I went home", "在公园里跑步", ""):  # fmt: skip
        assert not begins_in_first_person(note), note


def test_a_name_jieba_cuts_after_its_first_character_is_whole_to_the_next_word() -> None:
    """梓萱: 梓 is a name to jieba, 萱 alone a noun; 在 after 梓 is no part of it."""
    assert note_subject("梓萱") == "梓萱"
    assert note_subject("梓萱在公园玩。") == "梓萱"
    assert note_subject("梓在公园玩。") == "梓"
    assert note_subject("梓") == "梓"


def test_what_opens_notes_is_no_name_where_it_holds_a_common_noun() -> None:
    """大公园很美: an adjective and a place, not a name however many notes open so."""
    assert notes_person(["大公园很美。", "大公园在城东。", "大公园有湖。"]) is None
    assert notes_person(["乐乐很开心。", "乐乐很累。", "乐乐很饿。"]) == "乐乐"


def test_a_clause_before_the_notes_person_says_when_or_where_in_at_most_four_words() -> None:
    four = ["On a cold day, Bart flew a kite.", "On a hot day, Bart read."]
    assert notes_person(four) == "bart"
    five = ["So on a cold day, Bart flew a kite.", "So on a hot day, Bart read."]
    assert notes_person(five) is None
    # a clause with someone in it (a pronoun, a relative) is no setting
    assert notes_person(["When he called, Bart laughed.", "When she left, Bart cried."]) is None
    for clause in ("他的生日，", "妈妈的生日，"):
        notes = [f"{clause}Bart吃了蛋糕。", f"{clause}Bart唱了歌。"]
        assert notes_person(notes) is None, clause
    assert notes_person(["去年的生日，Bart吃了蛋糕。", "去年的生日，Bart唱了歌。"]) == "bart"


def test_a_clause_of_there_being_a_day_is_a_setting_and_other_verbs_are_not() -> None:
    """有 before a number (有一天，有一次) says when; 有 with no number after it is a verb."""
    assert notes_person(["有一天，Bart去了公园。", "有一次，Bart哭了。"]) == "bart"
    assert notes_person(["那天有，Bart去了公园。", "那天有，Bart哭了。"]) is None
    assert notes_person(["我们到了，Bart去了公园。", "走了以后，Bart哭了。"]) is None


def test_a_latin_name_is_a_whole_word_a_note_begins_with() -> None:
    assert note_begins_with("Bart went home.", "bart")
    assert not note_begins_with("Bartholomew went home.", "Bart")
    assert note_begins_with("佳怡和朋友去了公园。", "佳怡")  # jieba cut it: 佳, 怡和


def test_a_records_field_is_a_few_lower_case_words_or_chinese_that_names_no_one() -> None:
    for note in ("favorite food of mine: sushi", "my favorite food: sushi", "老公：医生"):
        assert begins_with_a_field(note), note
    for note in (
        "best food of my life: sushi",
        "they said: hi",
        "Lisa的diary：今天很开心",
        "小明的职业：老师",
    ):
        assert not begins_with_a_field(note), note


def test_notes_in_the_third_person_count_for_the_one_note_that_names_them() -> None:
    assert notes_person(["Lisa在公园。", "她很开心。", "她哭了。", "她笑了。"]) == "lisa"

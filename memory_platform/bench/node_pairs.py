"""A labelled set of topic/object node pairs for measuring node-merge quality.

Duplicates are the same thing written differently (case, width, punctuation, spacing,
plural, a qualifier); near-misses are different things that look or sound alike. Each
pair carries the subject both memories are about, so the context rule has something to
compare. Built by hand; Chinese and English. Used by ``memory-platform eval merge`` and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NodePair:
    a: str
    b: str
    duplicate: bool
    lang: str
    subject: str = "Tom"


_EN_DUPLICATES = [
    ("coffee", "Coffee"), ("coffee", "coffee!"), ("running shoes", "running shoe"),
    ("New York", "new york"), ("jazz", "Jazz."), ("hiking", "Hiking"), ("basketball", "BASKETBALL"),
    ("the quarterly report", "The quarterly report"), ("science fiction", "Science-fiction"),
    ("coffee beans", "coffee bean"), ("board games", "board game"), ("a new laptop", "A new laptop"),
    ("yoga", "yoga!"), ("Tokyo", "tokyo"), ("pizza", "Pizza"), ("sushi", "sushi."),
    ("dumplings", "dumpling"), ("running", "Running"), ("the gym", "The Gym"), ("camping", "camping!"),
    ("painting", "Painting"), ("flowers", "flower"), ("a salad", "A salad"), ("noodles", "noodle"),
    ("the park", "the park."), ("Chicago", "chicago"), ("Lisbon", "Lisbon!"), ("the coast", "The coast"),
    ("swimming", "Swimming"), ("cycling", "Cycling"), ("tennis", "Tennis"), ("chess", "Chess"),
    ("the office", "the Office"), ("piano lessons", "piano lesson"), ("guitar", "Guitar"),
    ("mountain bike", "mountain bikes"), ("green tea", "Green tea"), ("dark chocolate", "dark-chocolate"),
    ("video games", "video game"), ("the beach", "The beach!"), ("photography", "Photography"),
    ("machine learning", "Machine Learning"), ("birthday party", "birthday parties"),
    ("job interview", "job interviews"), ("road trip", "road trips"), ("book club", "Book Club"),
    ("pottery class", "pottery classes"), ("support group", "Support group"),
    ("adoption agency", "adoption agencies"), ("counseling", "Counseling"),
]  # fmt: skip
_EN_NEAR_MISSES = [
    ("coffee", "tea"), ("basketball", "football"), ("Paris", "London"), ("apple", "orange"),
    ("running", "swimming"), ("jazz", "rock"), ("Tokyo", "Kyoto"), ("pizza", "pasta"),
    ("cat", "dog"), ("morning", "evening"), ("happy", "sad"), ("winter", "summer"),
    ("piano", "violin"), ("the gym", "the library"), ("sushi", "ramen"), ("hiking", "biking"),
    ("Monday", "Friday"), ("brother", "sister"), ("teacher", "student"), ("red wine", "white wine"),
    ("new car", "old car"), ("the beach", "the mountains"), ("tennis", "table tennis"),
    ("chess", "checkers"), ("the office", "the post office"), ("painting", "printing"),
    ("camping", "glamping"), ("flowers", "flour"), ("salad", "salsa"), ("noodles", "needles"),
    ("Chicago", "Chile"), ("Lisbon", "Lisburn"), ("yoga", "yogurt"), ("cycling", "recycling"),
    ("guitar", "sitar"), ("dark chocolate", "white chocolate"), ("video games", "video calls"),
    ("photography", "geography"), ("machine learning", "machine washing"), ("book club", "golf club"),
    ("pottery class", "poetry class"), ("support group", "study group"), ("adoption", "adaption"),
    ("counseling", "canceling"), ("birthday party", "political party"), ("job interview", "job offer"),
    ("road trip", "field trip"), ("green tea", "green tee"), ("mountain bike", "mountain hike"),
    ("board games", "board meetings"),
]  # fmt: skip
_ZH_DUPLICATES = [
    ("咖啡", "咖啡！"), ("咖啡", " 咖啡 "), ("篮球", "篮球。"), ("上海", "上海!"), ("跑步", "跑步～"),
    ("AI", "ＡＩ"), ("iPhone", "ｉＰｈｏｎｅ"), ("北京", "北京 "), ("火锅", "火锅！"), ("游泳", "游泳。"),
    ("爵士乐", "爵士乐!"), ("画画", "画画～"), ("瑜伽", "瑜伽 "), ("面条", "面条。"), ("饺子", "饺子！"),
    ("小说", "小说…"), ("电影", "电影?"), ("旅行", "旅行 !"), ("加班", "加班。。"), ("出差", "出差!"),
    ("健身", "健身 。"), ("羽毛球", "羽毛球！"), ("寿司", "寿司~"), ("沙拉", "沙拉 "), ("花", "花。"),
    ("电脑", "电脑！"), ("衣服", "衣服 "), ("书", "书！"), ("咖啡豆", "咖啡豆。"), ("成都", "成都 "),
    ("日本", "日本！"), ("云南", "云南。"), ("海边", "海边~"), ("公园", "公园 "), ("学校", "学校！"),
    ("超市", "超市。"), ("会议", "会议 "), ("面试", "面试！"), ("培训", "培训。"), ("报告", "报告 "),
    ("猫", "猫！"), ("狗", "狗。"), ("钢琴", "钢琴 "), ("吉他", "吉他!"), ("摄影", "摄影。"),
    ("数学", "数学 "), ("英语", "英语！"), ("历史", "历史。"), ("音乐", "音乐~"), ("舞蹈", "舞蹈 "),
]  # fmt: skip
_ZH_NEAR_MISSES = [
    ("咖啡", "茶"), ("篮球", "足球"), ("上海", "北京"), ("跑步", "游泳"), ("喜欢", "讨厌"),
    ("火锅", "火车"), ("爵士乐", "摇滚乐"), ("画画", "画家"), ("面条", "面包"), ("饺子", "包子"),
    ("小说", "小明"), ("电影", "电视"), ("旅行", "银行"), ("加班", "上班"), ("出差", "出国"),
    ("健身", "健康"), ("羽毛球", "乒乓球"), ("寿司", "司机"), ("沙拉", "沙发"), ("花", "草"),
    ("电脑", "电话"), ("衣服", "裤子"), ("书", "笔"), ("咖啡豆", "咖啡店"), ("成都", "重庆"),
    ("日本", "韩国"), ("云南", "海南"), ("海边", "山上"), ("公园", "公司"), ("学校", "医院"),
    ("超市", "菜市场"), ("会议", "聚会"), ("面试", "考试"), ("培训", "培养"), ("报告", "报纸"),
    ("猫", "狗"), ("早上", "晚上"), ("钢琴", "小提琴"), ("吉他", "贝斯"), ("摄影", "录音"),
    ("数学", "物理"), ("英语", "日语"), ("历史", "地理"), ("音乐", "美术"), ("舞蹈", "唱歌"),
    ("开心", "伤心"), ("哥哥", "弟弟"), ("老师", "学生"), ("红酒", "白酒"), ("春天", "秋天"),
]  # fmt: skip


def labelled_pairs() -> list[NodePair]:
    """Every pair of the set: 200, half duplicates, half near-misses."""
    pairs = [NodePair(a, b, True, "en") for a, b in _EN_DUPLICATES]
    pairs += [NodePair(a, b, False, "en") for a, b in _EN_NEAR_MISSES]
    pairs += [NodePair(a, b, True, "zh", "小明") for a, b in _ZH_DUPLICATES]
    pairs += [NodePair(a, b, False, "zh", "小明") for a, b in _ZH_NEAR_MISSES]
    return pairs

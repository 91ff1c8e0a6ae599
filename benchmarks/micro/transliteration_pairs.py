"""Microbenchmark: how often a name and its transliteration are found, and how often two
different names are taken for one (``retrieval.transliteration``).

Common English names beside the form Chinese usually writes them in, and every pair of
an English name of that list and a common Chinese name (surname and given name,
children's names and nicknames). The lists are written here, not taken from any data
the evaluation uses.

    .venv/bin/python benchmarks/micro/transliteration_pairs.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/transliteration.md``).
"""

from __future__ import annotations

from pathlib import Path

from report import Report, out_path

from memory_platform.retrieval.transliteration import same_name_in_two_scripts

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "transliteration.md"

USUAL_FORMS = """
Lisa 丽莎 Bart 巴特 Tom 汤姆 Mike 迈克 Jack 杰克 Jimmy 吉米 Lucy 露西 Emma 艾玛 Anna 安娜
Linda 琳达 Kevin 凯文 Sophia 索菲亚 Alice 爱丽丝 Bob 鲍勃 Peter 彼得 Mary 玛丽 Harry 哈利
Amy 艾米 Tony 托尼 Lily 莉莉 Carl 卡尔 Paul 保罗 Bill 比尔 Albert 阿尔伯特 Hannah 汉娜
William 威廉 Wendy 温蒂 Max 马克斯 Sarah 萨拉 Thomas 托马斯 Martha 玛莎 George 乔治
Charlie 查理 Daniel 丹尼尔 Michael 迈克尔 Jessica 杰西卡 Jennifer 詹妮弗 Robert 罗伯特
Richard 理查德 Steven 史蒂文 Eric 埃里克 Frank 弗兰克 Grace 格蕾丝 Helen 海伦 Ivan 伊万
Jason 杰森 Kate 凯特 Laura 劳拉 Nancy 南希 Oliver 奥利弗 Rose 罗丝 Sam 萨姆 Victor 维克多
Zoe 佐伊 Caroline 卡罗琳 Melanie 梅拉妮 Joanna 乔安娜 Nate 内特 Tim 蒂姆 John 约翰
David 大卫 Evan 埃文 Gina 吉娜 Leo 利奥 Nina 妮娜 Andrew 安德鲁 Emily 艾米丽
Olivia 奥利维亚 Ethan 伊森 Lucas 卢卡斯 Mia 米娅 Noah 诺亚
""".split()
"""English names and their usual Chinese forms, in pairs."""

CHINESE_NAMES = """
张伟 王芳 李娜 刘洋 陈静 杨帆 赵磊 黄敏 周杰 吴刚 徐丽 孙强 马超 朱红 胡军 郭涛 何平 林峰
罗斌 高飞 梁燕 宋佳 郑凯 谢婷 韩梅 唐亮 冯雪 于洋 董明 萧然 程浩 曹阳 袁媛 邓超 许晴 傅强
沈冰 曾丽 彭磊 吕娟 卢伟 蒋欣 蔡文 贾玲 丁宁 魏巍 薛冰 叶青 阎明 余华 潘越 杜鹃 戴军 夏雨
钟汉 汪洋 田甜 任静 姜文 范冰 方圆 石磊 姚明 谭咏 廖凡 邹静 熊猫 金星 陆毅 郝蕾 孔丽 白雪
崔健 康辉 毛毛 邱淑 秦岚 江涛 史诗 顾长 侯勇 邵兵 孟飞 龙梅 万里 段宏 雷佳 钱程 汤唯 尹相
黎明 易烊 常远 武松 贺龙 赖宁 龚琳 文章 小红 小明 乐乐 明明 小伟 婷婷 丽丽 小芳 阿杰 小丽
欢欢 东东 甜甜 晓红 李晓红 张婷婷 王丽 阿伟 小李 老王 佳佳 宝宝 妞妞 豆豆
""".split()
"""Common Chinese names: none of them a transliteration of an English name."""

INTRO = (
    "A name in Latin letters and a name in Chinese characters taken for one name"
    " (`retrieval.transliteration.same_name_in_two_scripts`;"
    " `benchmarks/micro/transliteration_pairs.py`):"
)
COLUMNS = ["pairs", "count", "as expected", "not as expected"]


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(INTRO, COLUMNS)
    usual = list(zip(USUAL_FORMS[::2], USUAL_FORMS[1::2], strict=True))
    table.add_tally(
        "an English name and its usual Chinese form (one name)",
        len(usual),
        [f"{a} {b}" for a, b in usual if not same_name_in_two_scripts(a, b)],
    )
    english = sorted({latin for latin, _ in usual})
    pairs = [(latin, chinese) for latin in english for chinese in CHINESE_NAMES]
    table.add_tally(
        "an English name of that list and a common Chinese name (two names)",
        len(pairs),
        [f"{a} {b}" for a, b in pairs if same_name_in_two_scripts(a, b)],
    )
    table.write(out)


if __name__ == "__main__":
    main()

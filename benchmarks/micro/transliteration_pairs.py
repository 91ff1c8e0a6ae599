"""Microbenchmark: how often a name and its transliteration are found, and how often two
different names are taken for one (``retrieval.transliteration``).

Common English names beside the form Chinese usually writes them in, and every pair of
an English name of that list and a common Chinese name (surname and given name,
children's names and nicknames); then each of those Chinese names beside a pinyin
spelling of it, and that spelling beside each of the other names. The lists are written
here, not taken from any data the evaluation uses or from the pinyin table.

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

PINYIN = """
张伟:Zhang_Wei 王芳:Wang_Fang 李娜:LI_Na 刘洋:Yang_Liu 陈静:Chen_Jing 杨帆:Yangfan 赵磊:Zhao_Lei
黄敏:Huang_Min 周杰:Jie_Zhou 吴刚:Wu_Gang 徐丽:Xu_Li 孙强:Sun_Qiang 马超:Ma_Chao 朱红:Zhu_Hong
胡军:Hu_Jun 郭涛:Guo_Tao 何平:He_Ping 林峰:Lin_Feng 罗斌:Luo_Bin 高飞:Gao_Fei 梁燕:Liang_Yan
宋佳:Song_Jia 郑凯:Zheng_Kai 谢婷:Xie_Ting 韩梅:Han_Mei 唐亮:Tang_Liang 冯雪:Feng_Xue
于洋:Yu_Yang 董明:Dong_Ming 萧然:Xiao_Ran 程浩:Cheng_Hao 曹阳:Cao_Yang 袁媛:Yuan_Yuan
邓超:Deng_Chao 许晴:Xu_Qing 傅强:Fu_Qiang 沈冰:Shen_Bing 曾丽:Zeng_Li 彭磊:Peng_Lei
吕娟:Lyu_Juan 卢伟:Lu_Wei 蒋欣:Jiang_Xin 蔡文:Cai_Wen 贾玲:Jia_Ling 丁宁:Ding_Ning
魏巍:Wei_Wei 薛冰:Xue_Bing 叶青:Ye_Qing 阎明:Yan_Ming 余华:Yu_Hua 潘越:Pan_Yue 杜鹃:Du_Juan
戴军:Dai_Jun 夏雨:Xia_Yu 钟汉:Zhong_Han 汪洋:Wang_Yang 田甜:Tian_Tian 任静:Ren_Jing
姜文:Jiang_Wen 范冰:Fan_Bing 方圆:Fang_Yuan 石磊:Shi_Lei 姚明:Yao_Ming 谭咏:Tan_Yong
廖凡:Liao_Fan 邹静:Zou_Jing 熊猫:Xiong_Mao 金星:Jin_Xing 陆毅:Lu_Yi 郝蕾:Hao_Lei 孔丽:Kong_Li
白雪:Bai_Xue 崔健:Cui_Jian 康辉:Kang_Hui 毛毛:Maomao 邱淑:Qiu_Shu 秦岚:Qin_Lan 江涛:Jiang_Tao
史诗:Shi_Shi 顾长:Gu_Chang 侯勇:Hou_Yong 邵兵:Shao_Bing 孟飞:Meng_Fei 龙梅:Long_Mei
万里:Wan_Li 段宏:Duan_Hong 雷佳:Lei_Jia 钱程:Qian_Cheng 汤唯:Tang_Wei 尹相:Yin_Xiang
黎明:Li_Ming 易烊:Yi_Yang 常远:Chang_Yuan 武松:Wu_Song 贺龙:He_Long 赖宁:Lai_Ning
龚琳:Gong_Lin 文章:Wen_Zhang 小红:Xiaohong 小明:Xiao-Ming 乐乐:Lele 明明:Mingming
小伟:XiaoWei 婷婷:Tingting 丽丽:Lili 小芳:Xiaofang 阿杰:A'jie 小丽:Xiaoli 欢欢:Huanhuan
东东:Dongdong 甜甜:Tiantian 晓红:Xiao_Hong 李晓红:Xiaohong_Li 张婷婷:Zhang_Tingting
王丽:Wang_Li 阿伟:Awei 小李:Xiao_Li 老王:Lao_Wang 佳佳:Jiajia 宝宝:Baobao 妞妞:Niuniu
豆豆:Doudou
""".split()
"""Each common Chinese name above and a pinyin spelling of it, written by hand as people
write their names in Latin letters (surname first or last, one word or two; _ is a
space)."""

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
    spelled = [tuple(entry.replace("_", " ").split(":")) for entry in PINYIN]
    table.add_tally(
        "a common Chinese name and its pinyin (one name)",
        len(spelled),
        [f"{b} {a}" for a, b in spelled if not same_name_in_two_scripts(b, a)],
    )
    others = [(b, c) for a, b in spelled for c in CHINESE_NAMES if c != a]
    table.add_tally(
        "the pinyin of one of those names and another of them (two names)",
        len(others),
        [f"{b} {c}" for b, c in others if same_name_in_two_scripts(b, c)],
    )
    table.write(out)


if __name__ == "__main__":
    main()

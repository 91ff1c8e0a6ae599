"""Relative and absolute time expressions resolve against a fixed message time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory_platform.timeparse import (
    dated_spans,
    named_dates,
    normalize_time,
    relative_spans,
    without_dates,
    without_time_words,
    year_spans,
    yearless_days,
)

CST = timezone(timedelta(hours=8))
REF = datetime(2025, 11, 5, 10, 0, tzinfo=CST)  # a Wednesday


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ("今天", "2025-11-05"),
        ("昨天", "2025-11-04"),
        ("前天", "2025-11-03"),
        ("大前天", "2025-11-02"),
        ("明天", "2025-11-06"),
        ("大后天", "2025-11-08"),
        ("今早", "2025-11-05 早上"),
        ("今晚", "2025-11-05 晚上"),
        ("昨晚", "2025-11-04 夜间"),
        ("夜间", "2025-11-05 夜间"),
        ("上周三", "2025-10-29"),
        ("三天前", "2025-11-02"),
        ("三天后", "2025-11-08"),
        ("两个月后", "2026-01"),
        ("2周前", "2025-10-22"),
        ("上个月", "2025-10"),
        ("去年", "2024"),
        ("今天早上8点", "2025-11-05 08:00"),
        ("下午3点半", "2025-11-05 15:30"),
        ("2025-11-05 08:00", "2025-11-05 08:00"),
        ("2025-11-04 夜间", "2025-11-04 夜间"),
        ("2025年11月3日", "2025-11-03"),
        ("11月3日", "2025-11-03"),
        ("yesterday", "2025-11-04"),
        ("the day before yesterday", "2025-11-03"),
        ("last Friday", "2025-10-31"),
        ("next monday", "2025-11-10"),
        ("this morning", "2025-11-05 morning"),
        ("tonight", "2025-11-05 evening"),
        ("last night", "2025-11-04 night"),
        ("3 days ago", "2025-11-02"),
        ("3 days from now", "2025-11-08"),
        ("in 3 days", "2025-11-08"),
        ("in a couple of weeks", "2025-11-19"),
        ("in two months", "2026-01"),
        ("two weeks ago", "2025-10-22"),
        ("last week", "2025-10-27 ~ 2025-11-02"),
        ("1:56 pm on 8 May, 2023", "2023-05-08 13:56"),
        ("May 8, 2023", "2023-05-08"),
        ("2023/5/7", "2023-05-07"),
        # seasons said relative to now: the last one over, the one we are in, the next
        ("last summer", "2025 summer"),
        ("last winter", "2024 winter"),
        ("this winter", "2025 winter"),
        ("next spring", "2026 spring"),
        ("上个夏天", "2025 夏季"),
        ("上上个夏天", "2024 夏季"),
        ("这个冬天", "2025 冬季"),
        # a year, or a season of a year, named
        ("2022", "2022"),
        ("2022年", "2022"),
        ("in 2022", "2022"),
        ("2021年夏天", "2021 夏季"),
        ("22年夏天", "2022 夏季"),
        ("98年冬天", "1998 冬季"),
        ("summer 2021", "2021 summer"),
        ("the fall of 2020", "2020 fall"),
    ],
)
def test_expressions_normalise(expression: str, text: str) -> None:
    parsed = normalize_time(expression, REF)
    assert parsed.parsed, expression
    assert parsed.text == text
    assert parsed.start is not None
    assert parsed.start.strftime("%Y-%m-%d") == text[:10] or text[:4] == str(parsed.start.year)


_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple of": 2, "a couple of": 2, "few": 3, "a few": 3,
    "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    "十": 10, "十二": 12, "二十": 20, "二十三": 23,
}  # fmt: skip


@pytest.mark.parametrize(("count", "days"), _COUNTS.items())
def test_every_count_word_counts_its_days(count: str, days: int) -> None:
    said = f"{count}天前" if "\u4e00" <= count[0] <= "\u9fff" else f"{count} days ago"
    expected = (REF - timedelta(days=days)).strftime("%Y-%m-%d")
    assert normalize_time(said, REF).text == expected


@pytest.mark.parametrize(
    ("said", "day"),
    [
        # 上周X is a day of the week before this one (Monday 2025-10-27 to Sunday 11-02)
        ("上周一", "2025-10-27"), ("上周二", "2025-10-28"), ("上周三", "2025-10-29"),
        ("上周四", "2025-10-30"), ("上周五", "2025-10-31"), ("上周六", "2025-11-01"),
        ("上周日", "2025-11-02"), ("上周天", "2025-11-02"),
        # "last X" is the latest X before today (a Wednesday), long names and short
        ("last monday", "2025-11-03"), ("last mon", "2025-11-03"),
        ("last tuesday", "2025-11-04"), ("last tue", "2025-11-04"), ("last tues", "2025-11-04"),
        ("last wednesday", "2025-10-29"), ("last wed", "2025-10-29"),
        ("last thursday", "2025-10-30"), ("last thu", "2025-10-30"),
        ("last thur", "2025-10-30"), ("last thurs", "2025-10-30"),
        ("last friday", "2025-10-31"), ("last fri", "2025-10-31"),
        ("last saturday", "2025-11-01"), ("last sat", "2025-11-01"),
        ("last sunday", "2025-11-02"), ("last sun", "2025-11-02"),
    ],
)  # fmt: skip
def test_every_weekday_name_names_its_day(said: str, day: str) -> None:
    assert normalize_time(said, REF).text == day


@pytest.mark.parametrize(
    ("said", "text", "end"),
    [
        # a part of the day said with a counted, weekday or dated day keeps its language
        ("三天前晚上", "2025-11-02 晚上", "2025-11-03 00:00"),
        ("上周三晚上", "2025-10-29 晚上", "2025-10-30 00:00"),
        ("上个月3号晚上", "2025-10-03 晚上", "2025-10-04 00:00"),
        ("the day before yesterday in the evening", "2025-11-03 evening", "2025-11-04 00:00"),
        ("day after tomorrow morning", "2025-11-07 morning", "2025-11-07 12:00"),
        ("3 days ago in the morning", "2025-11-02 morning", "2025-11-02 12:00"),
        # years and weeks counted from now, and the whole of what they name
        ("两年前", "2023", "2024-01-01 00:00"), ("三年后", "2028", "2029-01-01 00:00"),
        ("2 years ago", "2023", "2024-01-01 00:00"), ("in 2 years", "2027", "2028-01-01 00:00"),
        ("去年", "2024", "2025-01-01 00:00"),
        ("三个星期前", "2025-10-15", "2025-10-16 00:00"), ("两个礼拜后", "2025-11-19", "2025-11-20 00:00"),
        ("3 weeks ago", "2025-10-15", "2025-10-16 00:00"), ("2 months ago", "2025-09", "2025-10-01 00:00"),
        ("几天前", "2025-11-02", "2025-11-03 00:00"),
        ("上周", "2025-10-27 ~ 2025-11-02", "2025-11-03 00:00"),
        ("下周", "2025-11-10 ~ 2025-11-16", "2025-11-17 00:00"),
        ("上上周三", "2025-10-22", "2025-10-23 00:00"), ("下下周一", "2025-11-17", "2025-11-18 00:00"),
        # "next" Wednesday said on a Wednesday is a week on, "this" one today
        ("next wednesday", "2025-11-12", "2025-11-13 00:00"),
        ("this wednesday", "2025-11-05", "2025-11-06 00:00"),
        ("下个冬天", "2025 冬季", "2026-03-01 00:00"), ("下下个春天", "2027 春季", "2027-06-01 00:00"),
        # a two-digit year is of this century up to next year, else of the last
        ("27年夏天", "1927 夏季", "1927-09-01 00:00"), ("26年夏天", "2026 夏季", "2026-09-01 00:00"),
        # every day word, and the month spans
        ("后天", "2025-11-07", "2025-11-08 00:00"), ("昨日", "2025-11-04", "2025-11-05 00:00"),
        ("明日", "2025-11-06", "2025-11-07 00:00"), ("今日", "2025-11-05", "2025-11-06 00:00"),
        ("today", "2025-11-05", "2025-11-06 00:00"), ("tomorrow", "2025-11-06", "2025-11-07 00:00"),
        ("昨夜", "2025-11-04 夜间", "2025-11-05 06:00"), ("今晨", "2025-11-05 早上", "2025-11-05 12:00"),
        ("今夜", "2025-11-05 夜间", "2025-11-06 06:00"), ("明早", "2025-11-06 早上", "2025-11-06 12:00"),
        ("明晚", "2025-11-06 晚上", "2025-11-07 00:00"),
        ("next thursday", "2025-11-06", "2025-11-07 00:00"),
        ("两个月前", "2025-09", "2025-10-01 00:00"), ("上个月", "2025-10", "2025-11-01 00:00"),
        ("2023-05", "2023-05", "2023-06-01 00:00"),
        # a month named with its year is that month, never a day of this year ("May 20")
        ("May 2023", "2023-05", "2023-06-01 00:00"), ("in June 2022", "2022-06", "2022-07-01 00:00"),
        ("Dec 2019", "2019-12", "2020-01-01 00:00"), ("2023年5月", "2023-05", "2023-06-01 00:00"),
        ("May 2, 2023", "2023-05-02", "2023-05-03 00:00"),
        # a weekend is its Saturday and Sunday, of the week the words count to
        ("上周末", "2025-11-01 ~ 2025-11-02", "2025-11-03 00:00"),
        ("这周末", "2025-11-08 ~ 2025-11-09", "2025-11-10 00:00"),
        ("last weekend", "2025-11-01 ~ 2025-11-02", "2025-11-03 00:00"),
        ("this past weekend", "2025-11-01 ~ 2025-11-02", "2025-11-03 00:00"),
        ("this weekend", "2025-11-08 ~ 2025-11-09", "2025-11-10 00:00"),
        ("next weekend", "2025-11-15 ~ 2025-11-16", "2025-11-17 00:00"),
        ("the weekend before last", "2025-10-25 ~ 2025-10-26", "2025-10-27 00:00"),
        # two back or on: as 上上周 and 下下个月
        ("the week before last", "2025-10-20 ~ 2025-10-26", "2025-10-27 00:00"),
        ("the month before last", "2025-09", "2025-10-01 00:00"),
        ("the year after next", "2027", "2028-01-01 00:00"),
        ("Friday before last", "2025-10-24", "2025-10-25 00:00"),
        ("Monday after next", "2025-11-17", "2025-11-18 00:00"),
        # a fortnight is two weeks; "from today" counts on, as "from now" does
        ("a fortnight ago", "2025-10-22", "2025-10-23 00:00"),
        ("a week from today", "2025-11-12", "2025-11-13 00:00"),
        # half a month is fifteen days, half a year six months
        ("半个月前", "2025-10-21", "2025-10-22 00:00"), ("半年前", "2025-05", "2025-06-01 00:00"),
        ("半个月之后", "2025-11-20", "2025-11-21 00:00"),
    ],
)  # fmt: skip
def test_what_a_day_week_or_year_spans(said: str, text: str, end: str) -> None:
    parsed = normalize_time(said, REF)
    assert (parsed.text, parsed.end and parsed.end.strftime("%Y-%m-%d %H:%M")) == (text, end)


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("this winter", "2024 winter"), ("这个冬天", "2024 冬季"),  # begun last December
        ("last winter", "2023 winter"), ("next summer", "2025 summer"), ("下个冬天", "2025 冬季"),
    ],
)  # fmt: skip
def test_seasons_said_in_january(said: str, text: str) -> None:
    assert normalize_time(said, datetime(2025, 1, 15, 10, tzinfo=CST)).text == text


@pytest.mark.parametrize("said", ["上个月三十二号", "2023-13", "this past week"])
def test_what_cannot_be_read_is_not_misread(said: str) -> None:
    assert normalize_time(said, REF).parsed is False


_MONTHS = [
    ("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May", None),
    ("June", "Jun"), ("July", "Jul"), ("August", "Aug"), ("September", "Sept"),
    ("October", "Oct"), ("November", "Nov"), ("December", "Dec"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "month"),
    [(name, i) for i, names in enumerate(_MONTHS, 1) for name in names if name] + [("Sep", 9)],
)
def test_every_month_name_names_its_month(said: str, month: int) -> None:
    assert normalize_time(f"{said} 8, 2023", REF).text == f"2023-{month:02d}-08"


@pytest.mark.parametrize(
    ("said", "hours"),
    [
        ("昨天早上", (6, 12)), ("yesterday morning", (6, 12)),
        ("昨天中午", (11, 14)), ("yesterday noon", (11, 14)),
        ("昨天下午", (12, 18)), ("yesterday afternoon", (12, 18)),
        ("昨天晚上", (18, 24)), ("yesterday evening", (18, 24)),
        ("昨天夜间", (21, 30)), ("yesterday night", (21, 30)),
        ("昨天凌晨", (0, 6)),
    ],
)  # fmt: skip
def test_every_part_of_day_spans_its_hours(said: str, hours: tuple[int, int]) -> None:
    parsed = normalize_time(said, REF)
    day = datetime(2025, 11, 4, tzinfo=CST)
    assert (parsed.start, parsed.end) == (
        day + timedelta(hours=hours[0]),
        day + timedelta(hours=hours[1]),
    )


@pytest.mark.parametrize(
    ("said", "moment"),
    [
        # an hour without am/pm is read in the part of the day said with it
        ("晚上8点", "2025-11-05 20:00"), ("昨天下午3点", "2025-11-04 15:00"),
        ("中午1点", "2025-11-05 13:00"), ("中午12点", "2025-11-05 12:00"),
        ("晚上4点", "2025-11-05 16:00"), ("上午11点", "2025-11-05 11:00"),
        # midnight, and the small hours after an evening or a night, are the next day's
        ("昨晚12点", "2025-11-05 00:00"), ("昨晚2点", "2025-11-05 02:00"),
        ("今晚1点", "2025-11-06 01:00"), ("凌晨12点", "2025-11-05 00:00"),
        ("last night at 1am", "2025-11-05 01:00"), ("last night at 11pm", "2025-11-04 23:00"),
        ("yesterday 24:00", "2025-11-05 00:00"), ("yesterday at 10:59", "2025-11-04 10:59"),
        # an hour past 12 needs no moving, nor does noon in the afternoon
        ("晚上20点", "2025-11-05 20:00"), ("下午12点", "2025-11-05 12:00"),
        ("中午11点", "2025-11-05 11:00"),
        # am and pm say it all
        ("yesterday at 12am", "2025-11-04 00:00"), ("yesterday at 12 pm", "2025-11-04 12:00"),
        ("yesterday at 9 a.m.", "2025-11-04 09:00"), ("tonight at 8pm", "2025-11-05 20:00"),
    ],
)  # fmt: skip
def test_a_clock_time_is_read_in_the_part_of_the_day_said(said: str, moment: str) -> None:
    """昨晚12点 was noon of the day before, 昨晚2点 two in the afternoon and "last night
    at 1am" one in the afternoon (an hour below 12 was always moved 12 on in the evening,
    am or not) until 2026-12-03."""
    assert normalize_time(said, REF).text == moment


@pytest.mark.parametrize("said", ["yesterday 25:00", "yesterday 10:75"])
def test_a_clock_time_that_cannot_be_is_left_out(said: str) -> None:
    assert normalize_time(said, REF).text == "2025-11-04"


def test_start_and_end_span_the_day_part() -> None:
    parsed = normalize_time("昨晚", REF)
    assert parsed.start == datetime(2025, 11, 4, 21, tzinfo=CST)
    assert parsed.end == datetime(2025, 11, 5, 6, tzinfo=CST)
    day = normalize_time("今天", REF)
    assert (day.start, day.end) == (
        datetime(2025, 11, 5, tzinfo=CST),
        datetime(2025, 11, 6, tzinfo=CST),
    )


@pytest.mark.parametrize("expression", ["春天的某个时候", "when I was young", "", "2025-02-30"])
def test_unknown_text_is_kept_verbatim_and_flagged(expression: str) -> None:
    parsed = normalize_time(expression, REF)
    assert parsed.parsed is False
    assert parsed.text == expression
    assert parsed.start is None


@pytest.mark.parametrize(
    ("question", "spans"),
    [
        ("What did Melanie paint on October 13, 2023?", [("2023-10-13", "2023-10-14")]),
        ("What did Gina find on 1 February, 2023?", [("2023-02-01", "2023-02-02")]),
        ("What did Maria start in December 2023?", [("2023-12-01", "2024-01-01")]),
        ("我2023年7月去了哪里?", [("2023-07-01", "2023-08-01")]),
        ("2023年10月13日发生了什么", [("2023-10-13", "2023-10-14")]),
        # a range is one span, from its first day to the end of its last; where one end
        # leaves out its year, month or day, the other end gives it
        ("between 2023-10-13 and 2024-02", [("2023-10-13", "2024-03-01")]),
        ("Where was John between August 11 and August 15 2023?", [("2023-08-11", "2023-08-16")]),
        ("What did I do from August 11 to 15, 2023?", [("2023-08-11", "2023-08-16")]),
        ("between 11 and 15 August 2023", [("2023-08-11", "2023-08-16")]),
        ("my trip, August 11-15, 2023", [("2023-08-11", "2023-08-16")]),
        ("from June to August 2023", [("2023-06-01", "2023-09-01")]),
        ("December 28 to January 3, 2024", [("2023-12-28", "2024-01-04")]),
        ("between May 5 and May 5, 2023", [("2023-05-05", "2023-05-06")]),
        # a range backwards within a month is none (it was the year up to its end): its
        # dated day is read alone, the other is a day without its year
        ("from August 15 to August 11, 2023", [("2023-08-11", "2023-08-12")]),
        ("2023年8月11日到15日我在哪里?", [("2023-08-11", "2023-08-16")]),
        ("2023年8月11日和8月15日之间", [("2023-08-11", "2023-08-16")]),
        ("2023-08-11至2023-08-15", [("2023-08-11", "2023-08-16")]),
        # "and" without "between" names two days; numbers that are no days stay numbers
        ("on August 11 and August 15, 2023", [("2023-08-15", "2023-08-16")]),
        (
            "shared on Aug 11, 2023 and on 1 Sept 2023",
            [("2023-08-11", "2023-08-12"), ("2023-09-01", "2023-09-02")],
        ),
        ("the forest picture shared on December 1,2023", [("2023-12-01", "2023-12-02")]),
        ("What did I do on August 11?", []),  # a day without its year: yearless_days
        ("in 2023-07 and 2023-09", [("2023-07-01", "2023-08-01"), ("2023-09-01", "2023-10-01")]),
        ("between 10 and 20 people came on June 5, 2023", [("2023-06-05", "2023-06-06")]),
        ("between 2023 and 2024", []),
        ("between February 28 and February 30, 2023", []),
        ("How many times did she go in 2023?", []),  # a bare year pins nothing down
        ("May I ask what you did yesterday?", []),  # relative words are not named dates
        ("on 2023-02-30", []),  # not a date
        ("What happened in mid-March, 2023?", [("2023-03-01", "2023-04-01")]),
        # days written in numbers: year first as in China, or last, where "5/7/2023" is
        # May 7 in the United States and 5 July elsewhere: both, unless a number is past 12
        ("What did I buy on 2023/5/7?", [("2023-05-07", "2023-05-08")]),
        ("我2023.05.07买了什么", [("2023-05-07", "2023-05-08")]),
        ("on 5/7/2023.", [("2023-05-07", "2023-05-08"), ("2023-07-05", "2023-07-06")]),
        ("on 3/13/2023", [("2023-03-13", "2023-03-14")]),
        ("on 13.3.2023", [("2023-03-13", "2023-03-14")]),
        ("on 5/5/2023", [("2023-05-05", "2023-05-06")]),
        ("on 2/30/2023", []),
        ("it cost 3/4/20231", []),
    ],
)
def test_named_days_and_months_are_found(question: str, spans: list[tuple[str, str]]) -> None:
    found = dated_spans(question)
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in found] == spans
    assert all(a.tzinfo is not None for a, _ in found)


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("When did Melanie go camping in June?", [6]),
        ("Which country was Tim visiting in the second week of November?", [11]),
        ("What did I do in early-August and late September?", [8, 9]),
        ("since january I have been running", [1]),
        ("Which spot did Joanna visit in May?", [5]),
        ("我6月去了哪里?", [6]), ("我六月份做了什么", [6]), ("十二月我去了哪里", [12]),
        ("May I ask what happened?", []),  # the verb
        ("What did I do in June 2023?", []),  # a month of a year: a span
        ("What did I do in March, 2023?", []),
        ("What did I do on June 5?", []),  # a day
        ("三个月前我在哪", []), ("上个月我在哪", []), ("六月初我在哪", []),  # no month named
    ],
)  # fmt: skip
def test_months_named_without_their_year_are_found(question: str, months: list[int]) -> None:
    assert named_dates(question).yearless_months == months


@pytest.mark.parametrize(
    ("question", "days"),
    [
        ("Where was John on August 11?", [(8, 11)]),
        ("What did John do on the 11th of August?", [(8, 11)]),
        ("when they met on Aug 15th", [(8, 15)]),
        ("我8月11日去了哪里？", [(8, 11)]),
        ("on August 11 and August 15, 2023", [(8, 11)]),  # the second holds its year
        ("Did I call on Feb 29?", [(2, 29)]),  # a day in some years
        ("on February 30", []),
        ("on August 11, 2023", []),  # a named date
        ("2023年8月11日到15日", []),  # a range
        ("I may 2 go in March", []),  # the verb, and a month without a day
    ],
)
def test_days_named_without_their_year_are_found(
    question: str, days: list[tuple[int, int]]
) -> None:
    assert yearless_days(question) == days


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("Where was John between August 11 and August 15 2023?", "Where was John ?"),
        ("2023年8月11日到15日我在哪里?", "我在哪里?"),
        ("What did Maria take up with friends from church in August 2023?",
         "What did Maria take up with friends from church in ?"),
        ("What did we discuss between John and Tim on 11 December, 2023?",
         "What did we discuss between John and Tim on ?"),
        ("What did John's teammates give him when they met on Aug 15th?",
         "What did John's teammates give him when they met on ?"),
        ("I may 2 go in March", "I may 2 go in March"),  # a verb, a month alone
    ],
)  # fmt: skip
def test_a_named_date_or_range_is_not_asked_of_the_text(question: str, rest: str) -> None:
    """The days a question names are matched against when things happened; the words
    and numbers that name them ("11", "between") are no words a text must say."""
    assert without_dates(question) == rest


@pytest.mark.parametrize(
    ("question", "spans"),
    [
        ("What did I eat yesterday?", [("2025-11-04", "2025-11-05")]),
        ("我今天为什么不开心?", [("2025-11-05", "2025-11-06")]),
        ("Why did I sleep so badly last night?", [("2025-11-04", "2025-11-06")]),  # told of
        ("我昨晚几点睡的?", [("2025-11-04", "2025-11-06")]),  # the morning after
        ("What did I eat last week?", [("2025-10-27", "2025-11-03")]),
        ("我上周三去了哪里?", [("2025-10-29", "2025-10-30")]),
        ("What did I do on Monday?", [("2025-11-03", "2025-11-04")]),  # the last Monday
        ("Who did I meet on Wednesday?", [("2025-10-29", "2025-10-30")]),  # asked on one
        ("这个月花了多少钱?", [("2025-11-01", "2025-12-01")]),
        ("上个月底我在做什么?", [("2025-10-01", "2025-11-01")]),
        ("去年夏天我去了哪里?", [("2024-06-01", "2024-09-01")]),
        ("Where did I travel last year?", [("2024-01-01", "2025-01-01")]),
        ("Who called me three days ago?", [("2025-11-02", "2025-11-03")]),
        ("What did I do last weekend?", [("2025-11-01", "2025-11-03")]),
        ("我上周末去了哪里?", [("2025-11-01", "2025-11-03")]),
        ("Who did I see the week before last?", [("2025-10-20", "2025-10-27")]),
        ("What did I buy a fortnight ago?", [("2025-10-19", "2025-10-26")]),  # that week
        ("我半个月前见了谁?", [("2025-10-18", "2025-10-25")]),  # that week too
        ("What did I buy two weeks ago?", [("2025-10-19", "2025-10-26")]),  # that week
        ("几天前我见了谁?", [("2025-10-30", "2025-11-05")]),  # some days back, not today
        ("What is planned for tomorrow?", [("2025-11-06", "2025-11-07")]),
        ("What did I say yesterday about what I did last Friday?",
         [("2025-11-04", "2025-11-05"), ("2025-10-31", "2025-11-01")]),
        ("早上周会上说了什么?", []),  # 早上 + 周会, no week
        ("我看了一下周围有什么?", []),  # 一下 + 周围, no next week
        ("他们什么时候登上月球的?", []),  # 登上 + 月球, no last month
        ("What did I eat on October 13, 2023?", []),  # a named date, not relative
        ("What do I like to eat?", []),
        ("Where did I go last summer?", [("2025-06-01", "2025-09-01")]),  # the last one over
        ("我上个夏天去了哪里?", [("2025-06-01", "2025-09-01")]),
        ("Where will I ski next winter?", [("2025-12-01", "2026-03-01")]),
        ("What did I do this fall?", [("2025-09-01", "2025-12-01")]),  # the season, as a time
        ("This fall I started college, right?", [("2025-09-01", "2025-12-01")]),
        ("Where did I go last fall, and with whom?", [("2024-09-01", "2024-12-01")]),
        ("Did this fall hurt?", []),  # a tumble
        ("Since my last fall I walk with a cane", []),
    ],
)  # fmt: skip
def test_relative_time_words_are_spans_of_whole_days_before_the_asking(
    question: str, spans: list[tuple[str, str]]
) -> None:
    found = relative_spans(question, REF)
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in found] == spans
    assert all(a.tzinfo == CST and a.hour == 0 for a, _ in found)  # days of the asker


@pytest.mark.parametrize(
    ("question", "spans"),
    [
        ("Where did I go hiking in 2022?", [("2022-01-01", "2023-01-01")]),
        ("What did I read during 2023?", [("2023-01-01", "2024-01-01")]),
        ("Where did Joanna travel in summer 2021?", [("2021-06-01", "2021-09-01")]),
        ("What did I plant in the spring of 2022?", [("2022-03-01", "2022-06-01")]),
        ("我2022年去了哪里?", [("2022-01-01", "2023-01-01")]),
        ("我2021年的夏天在做什么?", [("2021-06-01", "2021-09-01")]),
        ("我还记得你22年夏天和同学们一起去露营", [("2022-06-01", "2022-09-01")]),
        ("在98年冬天", [("1998-12-01", "1999-03-01")]),  # a winter runs into the next year
        ("in fall 2020 and in 2021", [("2020-09-01", "2020-12-01"), ("2021-01-01", "2022-01-01")]),
        ("Did I sell my 2019 Honda?", []),  # a year among words is no time
        ("2022 people came", []),
        ("我工作了22年", []),  # twenty-two years
        ("2022年3月", []),  # a month: a named date
        ("in 2022-05", []),
    ],
)  # fmt: skip
def test_years_and_seasons_of_a_year_said_as_a_time_are_spans(
    question: str, spans: list[tuple[str, str]]
) -> None:
    found = year_spans(question, REF)
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in found] == spans
    assert all(a.tzinfo == CST for a, _ in found)


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("What did I buy on May 7, 2023?", "What did I buy on?"),
        ("What did I buy on 5/7/2023?", "What did I buy on?"),
        ("What did I buy last week?", "What did I buy?"),
        ("我2022年夏天和小红去哪玩了?", "我和小红去哪玩了?"),
        ("我昨晚为什么没睡好?", "我为什么没睡好?"),
        ("Who did I meet in Beijing yesterday?", "Who did I meet in Beijing?"),
        ("Did I sell my 2019 Honda?", "Did I sell my 2019 Honda?"),
        ("What did I do this fall?", "What did I do?"),
        ("Did this fall hurt?", "Did this fall hurt?"),
        ("How bad was my last fall?", "How bad was my last fall?"),
        # the mark a time word puts on what follows goes with it; a person's 的 stays
        ("What did we discuss in yesterday's meeting?", "What did we discuss in meeting?"),
        ("Who came to last summer\u2019s party?", "Who came to party?"),
        ("What did I do on May 7's trip?", "What did I do on trip?"),
        ("我们在昨天的会上说了什么?", "我们在会上说了什么?"),
        ("2023年5月7日的会议说了什么", "会议说了什么"),
        ("你看我今天的衣服好不好看？", "你看我的衣服好不好看？"),
        ("Caroline's plan", "Caroline's plan"),
    ],
)  # fmt: skip
def test_what_a_search_embeds_of_a_question_says_nothing_of_when(question: str, rest: str) -> None:
    assert without_time_words(question) == rest


@pytest.mark.parametrize(
    ("expression", "asked", "text"),
    [
        ("last winter", datetime(2025, 1, 20, tzinfo=CST), "2023 winter"),  # we are in 2024's
        ("this winter", datetime(2025, 1, 20, tzinfo=CST), "2024 winter"),
        ("next winter", datetime(2025, 1, 20, tzinfo=CST), "2025 winter"),
        ("last summer", datetime(2025, 7, 15, tzinfo=CST), "2024 summer"),  # this one is on
        ("this summer", datetime(2025, 7, 15, tzinfo=CST), "2025 summer"),
        ("上上个冬天", datetime(2025, 3, 1, tzinfo=CST), "2023 冬季"),  # 2024's ended yesterday
    ],
)
def test_a_season_said_relative_to_now_is_counted_from_the_season_we_are_in(
    expression: str, asked: datetime, text: str
) -> None:
    assert normalize_time(expression, asked).text == text


def test_a_season_counted_past_the_calendar_is_not_understood() -> None:
    assert normalize_time("上" * 5000 + "个夏天", REF).parsed is False

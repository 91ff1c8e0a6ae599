"""Turns the time words of a message into absolute dates, relative to the message time.

``今天`` said on 2025-11-05 becomes ``2025-11-05``; ``昨晚`` becomes ``2025-11-04 晚上``;
``last Friday`` and ``上周三`` become dates; ``2025-11-05 08:00`` stays as it is. Text that
is not understood is kept verbatim and flagged (``parsed=False``), never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo

__all__ = [
    "NamedDates",
    "ParsedTime",
    "dated_spans",
    "is_calendar_word",
    "named_dates",
    "normalize_time",
    "relative_spans",
    "resolve_time_words",
    "without_dates",
    "without_time_words",
    "year_spans",
    "yearless_days",
]


@dataclass(frozen=True)
class ParsedTime:
    """A normalised time expression.

    Attributes:
        text: the normalised text stored in the memory (the input itself when unparsed).
        start: the start of the time span, in the reference time's zone (None when unparsed).
        end: the end of the span (exclusive), or None.
        parsed: whether the expression was understood.
        original: the text as given.
        partial: only part of the expression was understood (``start`` is a coarse
            span); callers keep the original words beside the span and flag it.
    """

    text: str
    start: datetime | None
    end: datetime | None
    parsed: bool
    original: str
    partial: bool = False


_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2,
    "a couple of": 2, "few": 3, "a few": 3,
}  # fmt: skip
_EN_COUNTS = "|".join(sorted((re.escape(k) for k in _EN_NUMBERS), key=len, reverse=True))
"""The counts of ``_EN_NUMBERS`` as a regex alternation, longest first ("a couple of"
before "a")."""
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3,
    "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
_EN_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1,
    "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip

# part of day: (zh label, en label, start hour, end hour)
_PERIODS = {
    "morning": ("早上", "morning", 6, 12),
    "noon": ("中午", "noon", 11, 14),
    "afternoon": ("下午", "afternoon", 12, 18),
    "evening": ("晚上", "evening", 18, 24),
    "night": ("夜间", "night", 21, 30),
    "dawn": ("凌晨", "early morning", 0, 6),
}
_ZH_PERIOD_WORDS = [
    ("凌晨", "dawn"), ("清晨", "morning"), ("早上", "morning"), ("早晨", "morning"),
    ("上午", "morning"), ("中午", "noon"), ("下午", "afternoon"), ("傍晚", "evening"),
    ("晚上", "evening"), ("夜里", "night"), ("夜间", "night"), ("半夜", "night"),
    ("深夜", "night"), ("夜晚", "night"), ("晚", "evening"), ("早", "morning"), ("夜", "night"),
]  # fmt: skip
_EN_PERIOD_WORDS = {
    "morning": "morning", "noon": "noon", "afternoon": "afternoon",
    "evening": "evening", "night": "night", "midnight": "night",
}  # fmt: skip


def _zh_number(text: str) -> int | None:
    """Parse 3, 十, 十二, 二十三, 三 (up to 99)."""
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = _ZH_DIGITS[tens] if tens else 1
        o = _ZH_DIGITS[ones] if ones else 0
        return t * 10 + o
    value = 0
    for ch in text:
        value = value * 10 + _ZH_DIGITS[ch]
    return value


def _day(ref: datetime, offset_days: int = 0) -> datetime:
    base = ref + timedelta(days=offset_days)
    return datetime.combine(base.date(), time(0), tzinfo=ref.tzinfo)


def _fmt_date(d: datetime) -> str:
    return d.strftime("%Y-%m-%d")


def _fmt_minute(d: datetime) -> str:
    return d.strftime("%Y-%m-%d %H:%M")


def _is_zh(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


_SMALL_HOURS_UNTIL = {"evening": 4, "night": 6}
"""Hours said with the evening or the night below these are the small hours after it
(今晚1点, 夜里5点); from them on they are the evening's own (晚上4点 is 16:00)."""


def _with_hour(day: datetime, clock: tuple[int, int, bool], period: str | None) -> datetime:
    """The moment a clock time names on ``day`` read in the part of the day said with it.

    An hour without am/pm is read in the part of the day: 下午3点 is 15:00, 晚上8点 20:00,
    中午1点 13:00, and 晚上12点 / 夜里12点 midnight. Past midnight the evening and the night
    go on into the next day, marked or not: 昨晚2点, 今晚1点 and "last night at 1 am" are
    the small hours after that evening, and 24:00 is the next day's 0:00."""
    hour, minute, marked = clock
    if period in _SMALL_HOURS_UNTIL:
        if hour < _SMALL_HOURS_UNTIL[period]:
            hour += 24
        elif not marked and hour <= 12:
            hour += 12
    elif not marked and ((period == "afternoon" and hour < 12) or (period == "noon" and hour < 6)):
        hour += 12
    elif not marked and period == "dawn" and hour == 12:
        hour = 0
    return day + timedelta(hours=hour, minutes=minute)


def _result(original: str, text: str, start: datetime, end: datetime | None) -> ParsedTime:
    return ParsedTime(text=text, start=start, end=end, parsed=True, original=original)


def _days(original: str, first: datetime, days: int) -> ParsedTime:
    """Whole days from ``first``: a week (Monday to Sunday) or a weekend (Saturday and
    Sunday), named by its first and last day."""
    last = first + timedelta(days=days - 1)
    return _result(
        original, f"{_fmt_date(first)} ~ {_fmt_date(last)}", first, first + timedelta(days=days)
    )


def _week_part(original: str, monday: datetime, part: str) -> ParsedTime:
    """The week that begins on ``monday``, or its weekend (``part`` "weekend")."""
    if part == "weekend":
        return _days(original, monday + timedelta(days=5), 2)
    return _days(original, monday, 7)


def _span_day(original: str, day: datetime, period: str | None, zh: bool) -> ParsedTime:
    if period is None:
        return _result(original, _fmt_date(day), day, day + timedelta(days=1))
    zh_label, en_label, start_h, end_h = _PERIODS[period]
    label = zh_label if zh else en_label
    return _result(
        original,
        f"{_fmt_date(day)} {label}",
        day + timedelta(hours=start_h),
        day + timedelta(hours=end_h),
    )


def _clock(text: str) -> tuple[int, int, bool] | None:
    """An explicit clock time in the text: 08:00, 8点, 8点半, 3 pm, 3:30pm; the hour (in 24
    once am or pm says which), the minute, and whether am or pm was said."""
    m = re.search(r"(\d{1,2})[:：](\d{2})\s*(am|pm|a\.m\.|p\.m\.)?", text, re.I)
    if m:
        hour, minute = int(m.group(1)), int(m.group(2))
        suffix = (m.group(3) or "").lower().replace(".", "")
    else:
        m = re.search(r"(\d{1,2}|[一二两三四五六七八九十]{1,3})\s*[点點时](半|(\d{1,2})分?)?", text)
        if m:
            hour = _zh_number(m.group(1)) or 0
            minute = 30 if m.group(2) == "半" else int(m.group(3) or 0)
            suffix = ""
        else:
            m = re.search(r"\b(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.)", text, re.I)
            if not m:
                return None
            hour, minute = int(m.group(1)), 0
            suffix = m.group(2).lower().replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    if suffix == "am" and hour == 12:
        hour = 0
    if hour > 24 or minute > 59:
        return None
    return hour, minute, bool(suffix)


def _zh_period(text: str) -> str | None:
    for word, period in _ZH_PERIOD_WORDS:
        if word in text:
            return period
    return None


def _en_period(text: str) -> str | None:
    for word, period in _EN_PERIOD_WORDS.items():
        if re.search(rf"\b{word}\b", text):
            return period
    if "tonight" in text:
        return "evening"
    return None


def _absolute(original: str, text: str, ref: datetime) -> ParsedTime | None:
    """ISO and Chinese calendar dates, English month names; optional clock time."""
    m = re.search(r"(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?", text)
    day: datetime | None = None
    if m:
        day = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=ref.tzinfo)
    else:
        m = re.search(r"(?<!\d)(\d{1,2})月(\d{1,2})[日号]", text)
        if m:
            day = datetime(ref.year, int(m.group(1)), int(m.group(2)), tzinfo=ref.tzinfo)
        else:
            month_names = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
            m = re.search(
                rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({month_names})\.?,?\s*(\d{{4}})?", text
            )
            m2 = re.search(  # "May 8, 2023", never "May 20" of "May 2023"
                rf"\b({month_names})\.?\s+(\d{{1,2}})(?!\d)(?:st|nd|rd|th)?,?\s*(\d{{4}})?",
                text,
            )
            if m:
                d, mon, y = int(m.group(1)), _EN_MONTHS[m.group(2)], m.group(3)
            elif m2:
                mon, d, y = _EN_MONTHS[m2.group(1)], int(m2.group(2)), m2.group(3)
            else:  # a month with its year: "May 2023", "2023-05", 2023年5月
                named = _DATED.search(text)
                span = _date_span(named, ref.tzinfo or UTC) if named else None
                if span is None:
                    return None
                return _result(original, span[0].strftime("%Y-%m"), *span)
            day = datetime(int(y) if y else ref.year, mon, d, tzinfo=ref.tzinfo)
    clock = _clock(text[m.end() :] if m else text) or _clock(text[: m.start()] if m else "")
    period = _zh_period(text) if _is_zh(text) else _en_period(text)
    if clock:
        start = _with_hour(day, clock, period)
        return _result(original, _fmt_minute(start), start, None)
    return _span_day(original, day, period, _is_zh(text))


def _shift(word: str) -> int:
    """上 -1, 上上 -2, 上上上 -3 ...; 下 +1, 下下 +2 ...; 这 / 本 0."""
    if word[0] in "上下":
        return len(word) * (-1 if word[0] == "上" else 1)
    return 0


# Northern-hemisphere meteorological seasons: the first month of each.
_SEASON_MONTH = {"春": 3, "夏": 6, "秋": 9, "冬": 12}
_EN_SEASON_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_EN_SEASONS = "|".join(_EN_SEASON_MONTH)


def _add_months(d: datetime, months: int) -> datetime:
    index = d.year * 12 + (d.month - 1) + months
    return d.replace(year=index // 12, month=index % 12 + 1, day=1)


def _season_label(start: datetime, season: str) -> str:
    """``2024 夏季`` or ``2024 summer``: the year the season begins in, and its name."""
    return f"{start.year} {season}季" if season in _SEASON_MONTH else f"{start.year} {season}"


def _relative_season(original: str, season: str, shift: int, ref: datetime) -> ParsedTime:
    """A season said relative to ``ref``: "last summer" and 上个夏天 (``shift`` -1) the latest
    one over by then, 上上个 the one before it; "this summer" and 这个夏天 (0) the one
    ``ref`` falls in, else the one of its year (a winter from its December); "next
    summer" (+1) the first one to begin after ``ref``."""
    first = _SEASON_MONTH.get(season) or _EN_SEASON_MONTH[season]
    today = _day(ref)
    this_year = today.replace(month=first, day=1)
    if shift == 0:  # the one we are in (a winter begun last December), else this year's
        last_year = this_year.replace(year=this_year.year - 1)
        start = last_year if today < _add_months(last_year, 3) else this_year
    elif shift < 0:  # back from the latest one over
        latest = this_year
        while _add_months(latest, 3) > today:
            latest = _add_months(latest, -12)
        start = _add_months(latest, 12 * (shift + 1))
    else:  # on from the first one to begin after today
        upcoming = this_year if this_year > today else _add_months(this_year, 12)
        start = _add_months(upcoming, 12 * (shift - 1))
    return _result(original, _season_label(start, season), start, _add_months(start, 3))


def _zh_relative(original: str, text: str, ref: datetime) -> ParsedTime | None:
    offsets = [
        ("大前天", -3), ("前天", -2), ("昨天", -1), ("昨日", -1), ("今天", 0), ("今日", 0),
        ("明天", 1), ("明日", 1), ("后天", 2), ("大后天", 3),
    ]  # fmt: skip
    short = {"昨晚": (-1, "night"), "昨夜": (-1, "night"), "今早": (0, "morning"),
             "今晨": (0, "morning"), "今晚": (0, "evening"), "今夜": (0, "night"),
             "明早": (1, "morning"), "明晚": (1, "evening")}  # fmt: skip
    for word, (offset, period) in short.items():
        if word in text:
            return _finish_day(original, text, _day(ref, offset), period, True)
    for word, offset in sorted(offsets, key=lambda o: -len(o[0])):
        if word in text:
            return _finish_day(
                original, text, _day(ref, offset), _zh_period(text.replace(word, "")), True
            )
    m = re.search(r"半(个月|年)(前|之前|以前|后|之后)", text)
    if m:  # 半个月前: fifteen days back; 半年后: six months on
        sign = -1 if "前" in m.group(2) else 1
        if m.group(1) == "年":
            start = _add_months(_day(ref), sign * 6)
            return _result(original, start.strftime("%Y-%m"), start, _add_months(start, 1))
        return _span_day(original, _day(ref, sign * 15), None, True)
    m = re.search(
        r"([\d一二两三四五六七八九十]+|几)\s*(天|日|个?星期|周|个?礼拜|个?月|年)(前|之前|以前|后|之后)",
        text,
    )
    if m:
        n = 3 if m.group(1) == "几" else _zh_number(m.group(1))
        if n is None:
            return None
        sign = -1 if "前" in m.group(3) else 1
        unit = m.group(2).lstrip("个")
        if unit in ("天", "日"):
            return _finish_day(original, text, _day(ref, sign * n), _zh_period(text), True)
        if unit in ("星期", "周", "礼拜"):
            return _span_day(original, _day(ref, sign * 7 * n), None, True)
        if unit == "月":
            start = _add_months(_day(ref), sign * n)
            return _result(original, start.strftime("%Y-%m"), start, _add_months(start, 1))
        start = _day(ref).replace(year=ref.year + sign * n, month=1, day=1)
        return _result(original, str(start.year), start, start.replace(year=start.year + 1))
    m = re.search(r"(上+|这|本|下+)个?(星期|周|礼拜)([一二三四五六日天末])?", text)
    if m:
        shift = _shift(m.group(1))
        monday = _day(ref, -ref.weekday() + 7 * shift)
        if m.group(3) == "末":  # 上周末: that week's Saturday and Sunday
            return _week_part(original, monday, "weekend")
        if m.group(3):
            return _finish_day(
                original,
                text,
                monday + timedelta(days=_ZH_WEEKDAYS[m.group(3)]),
                _zh_period(text),
                True,
            )
        return _week_part(original, monday, "week")
    m = re.search(r"(上+|这|本|下+)个?月(?:([\d一二三四五六七八九十]+)\s*[号日])?", text)
    if m:
        shift = _shift(m.group(1))
        start = _add_months(_day(ref), shift)
        if m.group(2):
            day = _zh_number(m.group(2))
            if day is None:
                return None
            return _finish_day(original, text, start.replace(day=day), _zh_period(text), True)
        return _result(original, start.strftime("%Y-%m"), start, _add_months(start, 1))
    m = re.search(r"(上+|这|本|下+)个?([春夏秋冬])[天季]", text)
    if m:
        return _relative_season(original, m.group(2), _shift(m.group(1)), ref)
    m = re.search(r"(前年|去年|今年|明年)", text)
    if m:
        year = ref.year + {"前年": -2, "去年": -1, "今年": 0, "明年": 1}[m.group(1)]
        season = re.search(r"(春|夏|秋|冬)(?:天|季)", text)
        if season:
            first = _SEASON_MONTH[season.group(1)]
            start = _day(ref).replace(year=year, month=first, day=1)
            label = f"{year} {season.group(1)}季"
            return _result(original, label, start, _add_months(start, 3))
        start = _day(ref).replace(year=year, month=1, day=1)
        return _result(original, str(year), start, start.replace(year=year + 1))
    day_part = _zh_period(text)
    if day_part is not None and len(text) <= 4:
        return _finish_day(original, text, _day(ref), day_part, True)
    return None


def _finish_day(
    original: str, text: str, day: datetime, period: str | None, zh: bool
) -> ParsedTime:
    clock = _clock(text)
    if clock:
        start = _with_hour(day, clock, period)
        return _result(original, _fmt_minute(start), start, None)
    return _span_day(original, day, period, zh)


_EN_UNITS = r"(?P<unit>day|week|fortnight|month|year)s?"
_EN_COUNTED = re.compile(
    rf"\b(?P<count>\d+|{_EN_COUNTS})\s+{_EN_UNITS}\s+(?P<way>ago|later|from (?:now|today))\b"
)
_EN_AHEAD = re.compile(rf"\bin\s+(?P<count>\d+|{_EN_COUNTS})\s+{_EN_UNITS}\b")
"""A count of days, weeks, fortnights, months or years back or on ("3 days ago", "two
weeks later", "a week from today"), and on from now ("in 3 days", "in a couple of
weeks")."""
_EN_WEEKDAY_NAMES = "|".join(sorted(_EN_WEEKDAYS, key=len, reverse=True))
_EN_TWO_OFF = re.compile(
    rf"\b(?P<what>week|weekend|month|year|{_EN_WEEKDAY_NAMES})\s+(?P<way>before last|after next)\b"
)
"""Two weeks, weekends, months, years or weekdays back or on: "the week before last",
"Friday before last", "the month after next"."""


def _en_relative(original: str, text: str, ref: datetime) -> ParsedTime | None:
    if "day before yesterday" in text:
        return _finish_day(original, text, _day(ref, -2), _en_period(text), False)
    if "day after tomorrow" in text:
        return _finish_day(original, text, _day(ref, 2), _en_period(text), False)
    if "last night" in text:
        return _finish_day(original, text, _day(ref, -1), "night", False)
    if "tonight" in text:
        return _finish_day(original, text, _day(ref), "evening", False)
    counted = _EN_COUNTED.search(text) or _EN_AHEAD.search(text)
    if counted:  # "3 days ago", "two weeks later", "in a few days", "a week from today"
        count, unit = counted.group("count"), counted.group("unit")
        n = int(count) if count.isdigit() else _EN_NUMBERS[count]
        sign = -1 if counted.groupdict().get("way") == "ago" else 1
        if unit == "fortnight":
            unit, n = "week", 2 * n
        if unit == "day":
            return _finish_day(original, text, _day(ref, sign * n), _en_period(text), False)
        if unit == "week":
            return _span_day(original, _day(ref, sign * 7 * n), None, False)
        if unit == "month":
            start = _add_months(_day(ref), sign * n)
            return _result(original, start.strftime("%Y-%m"), start, _add_months(start, 1))
        start = _day(ref).replace(year=ref.year + sign * n, month=1, day=1)
        return _result(original, str(start.year), start, start.replace(year=start.year + 1))
    for word, offset in (("yesterday", -1), ("today", 0), ("tomorrow", 1)):
        if re.search(rf"\b{word}\b", text):
            return _finish_day(original, text, _day(ref, offset), _en_period(text), False)
    m = re.search(r"\bthis (morning|afternoon|evening)\b", text)
    if m:
        return _finish_day(original, text, _day(ref), m.group(1), False)
    two_off = _EN_TWO_OFF.search(text)
    if two_off:  # "the week before last": two back from this one
        shift = -2 if two_off["way"] == "before last" else 2
        if two_off["what"] in _EN_WEEKDAYS:  # "Friday before last": a week before last Friday
            day = _weekday(ref, _EN_WEEKDAYS[two_off["what"]], "last" if shift < 0 else "next")
            day += timedelta(days=7 if shift > 0 else -7)
            return _finish_day(original, text, day, _en_period(text), False)
        return _en_unit(original, two_off["what"], shift, ref)
    m = re.search(rf"\b(last|this|next|on)?\s*({_EN_WEEKDAY_NAMES})\b", text)
    if m:
        day = _weekday(ref, _EN_WEEKDAYS[m.group(2)], m.group(1) or "last")
        return _finish_day(original, text, day, _en_period(text), False)
    m = re.search(rf"\b(last|this|next)\s+({_EN_SEASONS})\b", text)
    if m:
        shift = {"last": -1, "this": 0, "next": 1}[m.group(1)]
        return _relative_season(original, m.group(2), shift, ref)
    m = re.search(r"\b(last|this past|this|next)\s+(weekend|week|month|year)\b", text)
    if m and (m.group(1) != "this past" or m.group(2) == "weekend"):
        shift = {"last": -1, "this past": -1, "this": 0, "next": 1}[m.group(1)]
        return _en_unit(original, m.group(2), shift, ref)
    day_part = _en_period(text)
    if day_part is not None:
        return _finish_day(original, text, _day(ref), day_part, False)
    return None


def _weekday(ref: datetime, target: int, which: str) -> datetime:
    """The day of weekday ``target`` (Monday 0): "last" and "on" the latest one before
    ``ref``'s day, "next" the first one after it, "this" the one of ``ref``'s week."""
    delta = target - ref.weekday()
    if which in ("last", "on"):
        delta = delta - 7 if delta >= 0 else delta
    elif which == "next":
        delta = delta + 7 if delta <= 0 else delta
    return _day(ref, delta)


def _en_unit(original: str, unit: str, shift: int, ref: datetime) -> ParsedTime:
    """The week (Monday to Sunday), weekend, month or year ``shift`` of them from
    ``ref``'s: "last week" -1, "this weekend" 0, "the month after next" +2."""
    if unit in ("week", "weekend"):
        return _week_part(original, _day(ref, -ref.weekday() + 7 * shift), unit)
    if unit == "month":
        start = _add_months(_day(ref), shift)
        return _result(original, start.strftime("%Y-%m"), start, _add_months(start, 1))
    start = _day(ref).replace(year=ref.year + shift, month=1, day=1)
    return _result(original, str(start.year), start, start.replace(year=start.year + 1))


def _year_or_season(original: str, text: str, ref: datetime) -> ParsedTime | None:
    """A year or a season of a year ("2022", 2022年, "summer 2021", 22年夏天)."""
    m = _NAMED_YEAR.search(text)
    if m is None:
        return None
    start, end, label = _named_year(m, ref.year, ref.tzinfo or UTC)
    return _result(original, label, start, end)


def normalize_time(expression: str, reference: datetime) -> ParsedTime:
    """Normalise a time expression relative to ``reference`` (the message time).

    Args:
        expression: what the user or the LLM wrote, e.g. ``昨晚``, ``last Friday``.
        reference: when the message was sent; its time zone is the user's.

    Returns:
        The normalised time; ``parsed`` is False and ``text`` the input when the
        expression was not understood.
    """
    original = expression
    text = expression.strip().lower()
    if not text:
        return ParsedTime(text=expression, start=None, end=None, parsed=False, original=original)
    unparsed = ParsedTime(text=expression, start=None, end=None, parsed=False, original=original)
    try:
        found = (
            _absolute(original, text, reference)
            or _zh_relative(original, text, reference)
            or _en_relative(original, text, reference)
            or _year_or_season(original, text, reference)
        )
        if found is None:
            clock = _clock(text)
            if clock is None:
                return unparsed
            day_part = _zh_period(text) if _is_zh(text) else _en_period(text)
            start = _with_hour(_day(reference), clock, day_part)
            found = _result(original, _fmt_minute(start), start, None)
    except (ValueError, OverflowError):  # 2025-02-30, or past the calendar's edge
        return unparsed
    if _has_unread_words(text):
        return ParsedTime(
            text=found.text,
            start=found.start,
            end=found.end,
            parsed=True,
            original=original,
            partial=True,
        )
    return found


# Words of time expressions the parsers above read; anything else in an expression they
# matched (下下下周, 去年年底, 上个月中旬, "the second week of") is read only in part.
_KNOWN_WORDS = re.compile(
    r"大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今早|今晨|今晚|今夜|明天|明日|明早|明晚|后天|大后天|"
    r"上上|下下|上|下|这|本|个|星期|周末|周|礼拜|月|年|前年|去年|今年|明年|天|日|号|季|春|夏|秋|冬|"
    r"之前|以前|之后|前|后|几|早上|上午|中午|下午|傍晚|晚上|夜里|凌晨|半夜|早晨|早|晚|夜|点|时|分|半|"
    r"的|左右|大约|大概|约|[\d一二两三四五六七八九十零〇]+|"
    r"[a-z]+|[\s,.:/\-]+"
)


def _has_unread_words(text: str) -> bool:
    """Whether Chinese characters outside the known time words remain (English and
    absolute dates are matched whole by their own patterns)."""
    rest = _KNOWN_WORDS.sub("", text)
    return bool(rest.strip())


_FALL_AS_SEASON = (
    r"(?<!\bmy )(?<!\byour )(?<!\bhis )(?<!\bher )(?<!\bits )(?<!\bour )(?<!\btheir )"
    r"(?<!\bthe )(?<!\bthat )(?<!\ba )"
    r"(?:last|this|next) fall"
    r"(?=\s*(?:$|[^\w\s']|'s\b|(?:i|we|you|he|she|they|it|my|our|your|his|her|their|in|at|"
    r"on|with|to|for|when|and|or|but|after|before|while|because|so|if|then|until|from|as)\b))"
)
""""Fall" is a season where it is said as a time, at the end of its clause or before
what may follow a time ("What did I do this fall?", "this fall I started", "next fall
in Paris", "last fall's trip"), and a tumble elsewhere ("Did this fall hurt?", "my last
fall"), which a question must keep asking."""

_TIME_WORDS = re.compile(
    r"大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今早|今晨|今晚|今夜|明天|明日|明早|明晚|大后天|后天|"
    r"(?<![早晚])(?:上上?|这|本|下下?)个?(?:星期|周(?![围边到全期年岁])|礼拜)[一二三四五六日天末]?|"
    r"(?<![早晚])(?:上上?|这|本|下下?)个?月(?![亮球饼光色])|(?:前年|去年|今年|明年)(?:[春夏秋冬][天季])?|"
    r"(?:上上?|这|本|下下?)个?[春夏秋冬][天季]|"
    r"(?:[\d一二两三四五六七八九十几]+\s*(?:天|周|个?星期|个?礼拜|个?月|年)|半(?:个月|年))"
    r"(?:之前|以前|前)|"
    r"\b(?:the day (?:before yesterday|after tomorrow)|yesterday|today|tonight|tomorrow|"
    r"last night|this (?:morning|afternoon|evening|week|month|year)|"
    r"(?:last|this|next) (?:spring|summer|autumn|winter)|"
    rf"{_FALL_AS_SEASON}|"
    r"(?:the )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|weekend|month|"
    r"year) (?:before last|after next)|"
    r"(?:last|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|month|year)|"
    r"(?:last|this past|this|next) weekend|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    rf"(?:\d+|{_EN_COUNTS}) (?:days?|weeks?|fortnights?|months?|years?) ago)\b",
    re.IGNORECASE,
)
"""Relative time words: the days, weeks, months, seasons and years said relative to when
the text was said (昨晚, 上周三, 这个月, 去年, 上个夏天, 三天前, yesterday, last Friday, on
Friday: the last one, this week, last summer, two weeks ago, the week before last, last
weekend); not 早上 or 晚上 before 周
or 月, nor 周围, 周年, 月亮, 月球 (看一下周围, 登上月球)."""


def resolve_time_words(text: str, reference: datetime) -> list[str]:
    """The absolute form of every relative time word in a sentence.

    ``昨晚没睡好`` said on 2025-11-05 gives ``["2025-11-04 夜间"]``, so a description
    can be matched against memories whose times were normalised when they were written.
    """
    out = []
    for match in _TIME_WORDS.finditer(text):
        parsed = normalize_time(match.group(0), reference)
        if parsed.parsed:
            out.append(parsed.text)
    return out


def relative_spans(text: str, reference: datetime) -> list[tuple[datetime, datetime]]:
    """The [start, end) spans of the relative time words of ``text`` said at ``reference``
    ("What did I eat yesterday?", "我上周吃了什么"), in whole days of ``reference``'s zone,
    in the order the text says them: a part of a day ("last night", 昨晚) is its whole day,
    and a night runs into the morning after, when it is told of; a rough count back ("two
    weeks ago", 几天前) is the week around the day it counts to, up to today (``_ROUGHLY_AGO``)."""
    spans = []
    for match in _TIME_WORDS.finditer(text):
        words = match.group(0)
        parsed = normalize_time(words, reference)
        if parsed.start is None:
            continue
        start = _day(parsed.start)
        end = _day(parsed.end - timedelta(microseconds=1), 1) if parsed.end else start
        end = max(end, start + timedelta(days=1))
        if _ROUGHLY_AGO.search(words) and end - start == timedelta(days=1):
            start, end = start - timedelta(days=3), min(end + timedelta(days=3), _day(reference))
        spans.append((start, end))
    return spans


_ROUGHLY_AGO = re.compile(
    r"(?:周|星期|礼拜|几天|半个月)[之以]?前|\b(?:weeks?|fortnights?|few days|couple of days) ago\b"
)
"""Counts back that name no exact day: "two weeks ago" and 两周前 are about that week, "a
few days ago" and 几天前 about some days around the third day back."""


_MONTH_NAMES = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
"""A month's name or its abbreviation ("Aug"), longest first; read as a month only beside
a day or a year, since alone some are words ("may", "mar")."""
_DATED = re.compile(
    rf"(?P<iso_y>\d{{4}})-(?P<iso_m>\d{{1,2}})(?:-(?P<iso_d>\d{{1,2}}))?(?!\d)"
    rf"|(?P<zh_y>\d{{4}})年(?P<zh_m>\d{{1,2}})月(?:(?P<zh_d>\d{{1,2}})[日号])?"
    rf"|\b(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_m>{_MONTH_NAMES})"
    rf"(?:,\s*|\s+)(?P<dm_y>\d{{4}})\b"
    rf"|\b(?P<md_m>{_MONTH_NAMES})(?:,\s*|\s+)(?:(?P<md_d>\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+))?"
    rf"(?P<md_y>\d{{4}})\b",
    re.IGNORECASE,
)
"""A day or a month named with its year: "on October 13, 2023", "in July 2023", "March,
2023", "2023-10-13", "2023年7月"."""


def _range_end(side: str) -> str:
    """One end of a named range, each part optional where the other end may give it
    ("August 11" of "August 11-15, 2023", "15日" of "2023年8月11日到15日"); group names
    carry the ``side`` prefix, since Python's ``re`` names a group once."""
    s = side
    return (
        rf"(?:(?P<{s}iso_y>\d{{4}})-(?P<{s}iso_m>\d{{1,2}})"
        rf"(?:-(?P<{s}iso_d>\d{{1,2}})(?!\d)|(?![\d-]))"
        rf"|(?=\d{{1,4}}[年月日号])(?:(?P<{s}zh_y>\d{{4}})年)?(?:(?P<{s}zh_m>\d{{1,2}})月)?"
        rf"(?:(?P<{s}zh_d>\d{{1,2}})[日号])?"
        rf"|\b(?:(?P<{s}md_m>{_MONTH_NAMES})(?:\s+(?P<{s}md_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d))?"
        rf"|(?P<{s}dm_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:\s+(?:of\s+)?(?P<{s}dm_m>"
        rf"{_MONTH_NAMES}))?)\b(?:,?\s+(?P<{s}en_y>\d{{4}})\b)?)"
    )


_DATED_RANGE = re.compile(
    rf"(?:\b(?P<lead>between|from)\s+)?{_range_end('a_')}"
    rf"\s*(?P<sep>-|–|—|~|～|到|至|\bto\b|\buntil\b|\btill\b|\bthrough\b|\band\b|和|与)\s*"
    rf"{_range_end('b_')}(?P<trail>\s*之间)?",
    re.IGNORECASE,
)
"""A named range of days or months: "between August 11 and August 15 2023", "from June
to August 2023", "August 11-15, 2023", "between 11 and 15 August 2023", "2023年8月11日到
15日", "2023-08-11至2023-08-15"."""

_LOOSE_SEPARATORS = {"and", "和", "与"}
"""Separators that join two days into a range only after "between" or before 之间: "on
August 11 and August 15, 2023" is two days, no range."""

_YEARLESS_MONTHS = _MONTH_NAMES.replace("may", "(?-i:May)")
"""Month names for a day without its year: May only as the month is written ("I may 2
go" is the verb)."""
_YEARLESS_DAY = re.compile(
    rf"\b(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_m>{_YEARLESS_MONTHS})\b"
    rf"|\b(?P<md_m>{_YEARLESS_MONTHS})\s+(?P<md_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)\b"
    rf"|(?<![\d年])(?P<zh_m>\d{{1,2}})月(?P<zh_d>\d{{1,2}})[日号]",
    re.IGNORECASE,
)
"""A day named without its year: "on August 11", "Aug 15th", "the 11th of August",
"8月11日"."""

_YEARLESS_MONTH = re.compile(
    r"\b(?:in|during|throughout|since|until|till|by|of|early|mid|late)[\s-]+(?:the\s+)?"
    rf"(?:month\s+of\s+)?(?P<md_m>{_YEARLESS_MONTHS})\b(?![\s,]*\d)"
    r"|(?<![\d年个几两每本这上下前后半])(?P<zh_m>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
    r"月份?(?![\d一二三四五六七八九十]|[初中底末])",
    re.IGNORECASE,
)
"""A month named without its year, as a time: "in June", "during August", "early May",
"the second week of November", 6月, 六月份; not "May" the verb, nor a month with its day
or year (read above), nor 三个月, 上个月 or 六月初 (a part of a month)."""

_NUMERIC_DATE = re.compile(
    r"(?<![\d/.:-])(?:(?P<y>\d{4})(?P<s1>[/.])(?P<m>\d{1,2})(?P=s1)(?P<d>\d{1,2})"
    r"|(?P<p>\d{1,2})(?P<s2>[/.])(?P<q>\d{1,2})(?P=s2)(?P<py>\d{4}))(?![\d/]|\.\d)"
)
"""A day written in numbers with slashes or dots: year first ("2023/5/7", "2023.05.07", as
written in China), or year last ("5/7/2023", "7.5.2023"), which is May 7 in the United
States and 5 July in most other places."""


def _numeric_days(m: re.Match[str], tz: tzinfo) -> list[tuple[datetime, datetime]]:
    """The days a match of ``_NUMERIC_DATE`` may mean: one when the year comes first or a
    number is past 12, both readings of "5/7/2023" (nothing tells the writer's custom),
    none when neither is a day."""
    if m["y"]:
        readings = [(int(m["y"]), int(m["m"]), int(m["d"]))]
    else:
        year, first, second = int(m["py"]), int(m["p"]), int(m["q"])
        readings = list(dict.fromkeys([(year, first, second), (year, second, first)]))
    days = []
    for year, month, day in readings:
        try:
            start = datetime(year, month, day, tzinfo=tz)
        except ValueError:
            continue
        days.append((start, start + timedelta(days=1)))
    return days


_YEAR = r"(?:1[89]|20)\d{2}"
_NAMED_YEAR = re.compile(
    rf"\b(?:the\s+)?(?P<en_season>{_EN_SEASONS})(?:\s+of)?\s+(?P<en_season_y>{_YEAR})\b"
    rf"|\b(?:in|during|throughout)\s+(?:the\s+year\s+)?(?P<en_y>{_YEAR})\b(?![-/.]\d)"
    rf"|(?<!\d)(?P<zh_season_y>{_YEAR}|\d{{2}})年的?(?P<zh_season>[春夏秋冬])[天季]"
    rf"|(?<!\d)(?P<zh_y>{_YEAR})年(?!\s*\d{{1,2}}\s*月)"
    rf"|^\s*(?P<only_y>{_YEAR})\s*$",
    re.IGNORECASE,
)
"""A year said as the time of something ("in 2022", "during 2022", 2022年), or a season
of a year ("summer 2021", "the spring of 2022", 2021年夏天, 22年夏天), or a year that is
the whole text. A year among other words is not read ("my 2019 Honda", "2022 people
came")."""


def _full_year(digits: str, reference_year: int) -> int:
    """A year as said: 2022 is 2022; 22 and 98 are the latest such year up to the year
    after ``reference_year`` (2022, 1998)."""
    if len(digits) == 4:
        return int(digits)
    year = 2000 + int(digits)
    return year if year <= reference_year + 1 else year - 100


def _named_year(
    m: re.Match[str], reference_year: int, tz: tzinfo
) -> tuple[datetime, datetime, str]:
    """The [start, end) span of the year or season a match of ``_NAMED_YEAR`` names, and
    its normalised text (``2022``, ``2021 夏季``, ``2021 summer``)."""
    digits = m["en_season_y"] or m["zh_season_y"] or m["en_y"] or m["zh_y"] or m["only_y"]
    year = _full_year(digits, reference_year)
    season = (m["en_season"] or m["zh_season"] or "").lower()
    if season:
        first = _SEASON_MONTH.get(season) or _EN_SEASON_MONTH[season]
        start = datetime(year, first, 1, tzinfo=tz)
        return start, _add_months(start, 3), _season_label(start, season)
    start = datetime(year, 1, 1, tzinfo=tz)
    return start, start.replace(year=year + 1), str(year)


def year_spans(text: str, reference: datetime) -> list[tuple[datetime, datetime]]:
    """The years and seasons of a year a text says something happened in ("Where did I go
    in 2022?", "in summer 2021", 我2021年夏天去了哪里, 22年夏天), as [start, end) spans in
    ``reference``'s zone, in the order the text says them; a two-digit year is read
    against ``reference``'s year. Unlike a named day, a year is also a word a text may say
    ("In 2022 I moved to Berlin"): it stays asked of the text."""
    tz = reference.tzinfo or UTC
    return [_named_year(m, reference.year, tz)[:2] for m in _NAMED_YEAR.finditer(text)]


_PART_GROUPS = {
    "y": ("iso_y", "zh_y", "dm_y", "md_y", "en_y"),
    "m": ("iso_m", "zh_m", "dm_m", "md_m"),
    "d": ("iso_d", "zh_d", "dm_d", "md_d"),
}
"""The groups of the patterns above that may hold a date's year, month or day, whichever
form it was written in."""


def _date_part(m: re.Match[str], part: str, side: str = "") -> int | None:
    """A match's year, month or day (``part``: y, m, d) as a number, if it names one."""
    for name in _PART_GROUPS[part]:
        value = m.groupdict().get(side + name)
        if value:
            return int(value) if value.isdigit() else _EN_MONTHS[value.lower()]
    return None


def _range_span(m: re.Match[str], tz: tzinfo) -> tuple[datetime, datetime] | None:
    """The [start, end) span a range match names, or None where it is no range: a part
    one end lacks comes from the other (a start without its year in the end's year, or the
    year before when its month comes after the end's); a year and a month must be named
    somewhere; an end without its day runs to the end of its month. A range that ends
    before it starts otherwise ("August 15 to August 11") is none: its dates are read one
    by one."""
    if m["sep"].lower() in _LOOSE_SEPARATORS and not (
        (m["lead"] or "").lower() == "between" or m["trail"]
    ):
        return None
    a = {p: _date_part(m, p, "a_") for p in "ymd"}
    b = {p: _date_part(m, p, "b_") for p in "ymd"}
    end_year, end_month, start_month = b["y"] or a["y"], b["m"] or a["m"], a["m"] or b["m"]
    if end_year is None or end_month is None or start_month is None:
        return None
    if a["d"] is None and b["d"] is None and a["m"] is None:  # "2023 and 2024": years alone
        return None
    try:
        if b["d"] is None:
            end = _add_months(datetime(end_year, end_month, 1, tzinfo=tz), 1)
        else:
            end = datetime(end_year, end_month, b["d"], tzinfo=tz) + timedelta(days=1)
        start_year = a["y"] or end_year
        start = datetime(start_year, start_month, a["d"] or 1, tzinfo=tz)
        if start >= end and a["y"] is None and start_month > end_month:
            start = start.replace(year=start_year - 1)  # "December 28 to January 3, 2024"
    except (ValueError, OverflowError):  # 2023-02-30, or the 29th in a year without one
        return None
    return (start, end) if start < end else None


def _date_span(m: re.Match[str], tz: tzinfo) -> tuple[datetime, datetime] | None:
    """The day, or the month, a match of ``_DATED`` names; None for no date (2023-02-30)."""
    year, month, day = (_date_part(m, p) for p in "ymd")
    assert year is not None  # the pattern requires a year and a month
    assert month is not None
    try:
        start = datetime(year, month, day or 1, tzinfo=tz)
    except (ValueError, OverflowError):
        return None
    return (start, start + timedelta(days=1) if day else _add_months(start, 1))


@dataclass(frozen=True)
class NamedDates:
    """What a text says of when: the spans it names outright (days, months and ranges of
    them, in the order it names them), the days it names without their year (month, day),
    the months it names as a time without their year (in June: 6), and the text without
    the spans and days (a month's name stays, as a year does: a text may say it too)."""

    spans: list[tuple[datetime, datetime]]
    yearless_days: list[tuple[int, int]]
    yearless_months: list[int]
    rest: str


def named_dates(text: str, tz: tzinfo = UTC) -> NamedDates:
    """Read the dates a text names in one pass: ranges first, then days written in numbers
    ("2023/5/7", "5/7/2023": both days it may be), then days and months with their year,
    then days without it, each piece blanked once read so that no part of a range or a
    date is read again alone. Relative words and years (:func:`year_spans`) are also
    words a text may say, and are left in it."""
    spans, days, blanked = _read_named_dates(text, tz)
    months = [_yearless_month(m) for m in _YEARLESS_MONTH.finditer(blanked)]
    return NamedDates(
        spans=spans,
        yearless_days=days,
        yearless_months=list(dict.fromkeys(months)),
        rest=re.sub(r"\s{2,}", " ", blanked).strip(),
    )


def _yearless_month(m: re.Match[str]) -> int:
    """The month a match of ``_YEARLESS_MONTH`` names."""
    if m["md_m"]:
        return _EN_MONTHS[m["md_m"].lower()]
    month = _zh_number(m["zh_m"])
    assert month is not None  # the pattern takes 1 to 12, in digits or characters
    return month


def _read_named_dates(
    text: str, tz: tzinfo
) -> tuple[list[tuple[datetime, datetime]], list[tuple[int, int]], str]:
    """:func:`named_dates`' reading: its spans and yearless days, and the text with each
    date blanked by as many spaces as it had characters."""
    spans: list[tuple[int, tuple[datetime, datetime]]] = []
    days: list[tuple[int, int]] = []

    def blank(m: re.Match[str]) -> str:
        return " " * len(m.group(0))

    def read_range(m: re.Match[str]) -> str:
        span = _range_span(m, tz)
        if span is None:
            return m.group(0)
        spans.append((m.start(), span))
        return blank(m)

    def read_date(m: re.Match[str]) -> str:
        span = _date_span(m, tz)
        if span is not None:
            spans.append((m.start(), span))
        return blank(m)  # a date that is none (2023-02-30) is still no words

    def read_numeric(m: re.Match[str]) -> str:
        spans.extend((m.start(), span) for span in _numeric_days(m, tz))
        return blank(m)

    def read_day(m: re.Match[str]) -> str:
        month, day = _date_part(m, "m"), _date_part(m, "d")
        assert month is not None  # the pattern requires a month and a day
        assert day is not None
        try:
            datetime(2024, month, day)  # a leap year: February 29 is a day
            days.append((month, day))
        except ValueError:
            pass
        return blank(m)

    text = _DATED_RANGE.sub(read_range, text)
    text = _NUMERIC_DATE.sub(read_numeric, text)
    text = _DATED.sub(read_date, text)
    text = _YEARLESS_DAY.sub(read_day, text)
    return [span for _, span in sorted(spans, key=lambda item: item[0])], days, text


def yearless_days(text: str) -> list[tuple[int, int]]:
    """The (month, day) of each day a text names without its year ("What did I do on
    August 11?"), in the order it names them: a day of that date in any year is meant,
    for a memory of several years cannot tell which. Days a named date or range already
    holds ("on August 11, 2023") are not among them."""
    return named_dates(text).yearless_days


def dated_spans(text: str, tz: tzinfo = UTC) -> list[tuple[datetime, datetime]]:
    """The days, months and ranges of them a text names outright ("on October 13, 2023",
    "in July 2023", "2023-10-13", "2023年7月", "between August 11 and August 15 2023"), as
    [start, end) spans in ``tz``, in the order the text names them."""
    return named_dates(text, tz).spans


def is_calendar_word(word: str) -> bool:
    """Whether an English word names a month or a day of the week ("May", "Tue")."""
    folded = word.casefold().rstrip(".")
    return folded in _EN_MONTHS or folded in _EN_WEEKDAYS


def without_dates(text: str) -> str:
    """``text`` without the days and months it names (see :func:`named_dates`): those are
    matched against when things happened, not against what was said."""
    return named_dates(text).rest


_CUT = "\x00"
_CUT_AND_ITS_MARK = re.compile(rf"(?<=[我你他她它们咱您]){_CUT}+(?=的)|{_CUT}+(?:['’]s\b|的)?")
"""Where :func:`without_time_words` cut a word of when, and the mark of what it said of
what follows ("yesterday's meeting", 在昨天的会上), which says nothing without it; but
for the 的 of a person's (我今天的衣服: 我的衣服)."""


def without_time_words(text: str) -> str:
    """``text`` without any word of when: named days and months, relative words
    (:data:`_TIME_WORDS`) and years (:data:`_NAMED_YEAR`). What a search embeds of its
    question: when is matched against when things happened, and "on May 7, 2023" or "last
    week" in the embedded question only moves it away from what was said then."""
    blanked = _read_named_dates(text, UTC)[2]
    marked = "".join(
        _CUT if said != " " and left == " " else left
        for said, left in zip(text, blanked, strict=True)
    )
    marked = _NAMED_YEAR.sub(_CUT, _TIME_WORDS.sub(_CUT, marked))
    rest = _CUT_AND_ITS_MARK.sub(" ", marked)  # "yesterday's meeting": "meeting"
    rest = re.sub(r"(?<=[\u3000-\u9fff])[ \t]+(?=[\u3000-\u9fff])", "", rest)  # 我 去了: 我去了
    rest = re.sub(r"[ \t]+(?=[?？!！.,，。:：;；])", "", rest)  # "buy ?": "buy?"
    return re.sub(r"\s{2,}", " ", rest).strip()

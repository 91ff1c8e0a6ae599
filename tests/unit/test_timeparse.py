"""Relative and absolute time expressions resolve against a fixed message time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory_platform.timeparse import dated_spans, normalize_time

CST = timezone(timedelta(hours=8))
REF = datetime(2025, 11, 5, 10, 0, tzinfo=CST)  # a Wednesday


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ("今天", "2025-11-05"),
        ("昨天", "2025-11-04"),
        ("前天", "2025-11-03"),
        ("明天", "2025-11-06"),
        ("今早", "2025-11-05 早上"),
        ("今晚", "2025-11-05 晚上"),
        ("昨晚", "2025-11-04 夜间"),
        ("夜间", "2025-11-05 夜间"),
        ("上周三", "2025-10-29"),
        ("三天前", "2025-11-02"),
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
        ("two weeks ago", "2025-10-22"),
        ("last week", "2025-10-27 ~ 2025-11-02"),
        ("1:56 pm on 8 May, 2023", "2023-05-08 13:56"),
        ("May 8, 2023", "2023-05-08"),
    ],
)
def test_expressions_normalise(expression: str, text: str) -> None:
    parsed = normalize_time(expression, REF)
    assert parsed.parsed, expression
    assert parsed.text == text
    assert parsed.start is not None
    assert parsed.start.strftime("%Y-%m-%d") == text[:10] or text[:4] == str(parsed.start.year)


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
        (
            "between 2023-10-13 and 2024-02",
            [("2023-10-13", "2023-10-14"), ("2024-02-01", "2024-03-01")],
        ),
        ("How many times did she go in 2023?", []),  # a bare year pins nothing down
        ("May I ask what you did yesterday?", []),  # relative words are not named dates
        ("on 2023-02-30", []),  # not a date
    ],
)
def test_named_days_and_months_are_found(question: str, spans: list[tuple[str, str]]) -> None:
    found = dated_spans(question)
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in found] == spans
    assert all(a.tzinfo is not None for a, _ in found)

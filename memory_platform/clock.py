"""The clock a turn was said on, kept for whatever reads it later.

The store keeps every time in UTC, and a worker (a session's extraction, a mid-term
summary) has only the deployment's time zone. A chat backend serving people in several
zones names each message's clock in its timestamp (``2025-11-05T07:30:00+08:00``); an
episode given such a time records its offset (:data:`UTC_OFFSET_KEY`), and the LLM reads
the turn, and the 昨天 it says, on that clock.

A time in UTC (``Z``, ``+00:00``) names an instant, not a clock: it is how JavaScript's
``toISOString()`` and most servers write every time. Such a time, and one with no zone,
is read on the deployment's clock, as before.

A call that names no clock (no ``reference_time``, or one in UTC) asks on its user's: the
clock of their latest turn that records one (``MemoryPlatform.user_clock``), so that an agent's
tool call in a Shanghai user's chat reads 昨天 as that user does on any deployment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from .models import Episode

__all__ = [
    "UTC_OFFSET_KEY",
    "clock_entry",
    "named_offset",
    "names_clock",
    "on_said_clock",
    "parse_offset",
    "said_at",
    "said_zone",
]

UTC_OFFSET_KEY = "utc_offset"
"""Metadata key of an episode said on a clock other than UTC: its offset, ``+08:00``."""

_OFFSET = re.compile(r"([+-])(\d{2}):(\d{2})")


def named_offset(when: datetime) -> str | None:
    """The UTC offset ``when`` names (``+08:00``); None for a time with no zone or in UTC."""
    offset = when.utcoffset()
    if not offset:
        return None
    minutes = round(offset.total_seconds() / 60)
    sign = "+" if minutes > 0 else "-"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def names_clock(when: datetime) -> bool:
    """Whether a zoned time says which clock its user reads: an offset other than UTC's, or
    a named zone (``ZoneInfo``: Europe/London is a clock in winter too). A fixed offset of
    zero (``Z``, ``datetime.UTC``) is an instant, and a time with no zone says nothing."""
    return named_offset(when) is not None or isinstance(when.tzinfo, ZoneInfo)


def parse_offset(text: object) -> timedelta:
    """A UTC offset as :func:`named_offset` writes it.

    Raises:
        ValueError: not such an offset, or not less than a day.
    """
    match = _OFFSET.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError("must be a UTC offset such as +08:00 or -05:00")
    sign, hours, minutes = match.groups()
    offset = timedelta(hours=int(hours), minutes=int(minutes))
    if offset >= timedelta(hours=24) or int(minutes) >= 60:
        raise ValueError("must be a UTC offset of less than 24:00")
    return -offset if sign == "-" else offset


def said_zone(metadata: Mapping[str, Any], zone: tzinfo) -> tzinfo:
    """The clock an episode was said on: its recorded offset, else ``zone`` (the
    deployment's). A recorded value that is no offset is read as none."""
    try:
        offset = parse_offset(metadata.get(UTC_OFFSET_KEY))
    except ValueError:
        return zone
    return timezone(offset)


def said_at(episode: Episode, zone: tzinfo) -> datetime:
    """When an episode was said, on the clock it was said on (:func:`said_zone`)."""
    return episode.timestamp.astimezone(said_zone(episode.metadata, zone))


def clock_entry(metadata: Mapping[str, Any]) -> dict[str, str]:
    """The metadata entry recording an episode's clock, for what retells it (a mid-term
    summary is read on its last message's clock); empty when there is none."""
    value = metadata.get(UTC_OFFSET_KEY)
    return {UTC_OFFSET_KEY: value} if isinstance(value, str) else {}


def on_said_clock(when: datetime, zone: tzinfo) -> datetime:
    """``when`` on the clock it names, if it names one other than UTC, else on ``zone``'s
    (a time with no zone is ``zone``'s already)."""
    if when.tzinfo is None:
        return when.replace(tzinfo=zone)
    return when if named_offset(when) else when.astimezone(zone)

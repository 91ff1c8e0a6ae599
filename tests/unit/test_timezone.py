"""The deployment's time zone (``MEMORY_TIMEZONE``): a time given with no zone is read in it,
and "yesterday" and 昨天 are its users' days, on every path that reads a time."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from memory_platform import MemoryPlatform, Message, Settings
from memory_platform.config import load_settings
from memory_platform.embeddings import Embedder
from memory_platform.errors import ConfigurationError, InvalidInputError
from tests.support.openai_stub import OpenAIStub

USER = "tz-user"
SHANGHAI = "Asia/Shanghai"
ASKED_AT = datetime(2025, 11, 5, 7, 30)
"""A message time with no zone: 07:30 on the 5th, in Shanghai 23:30 UTC on the 4th."""
MakePlatform = Callable[..., MemoryPlatform]


@pytest.fixture
def make_platform(tmp_path: Path, embedder: Embedder) -> Iterator[MakePlatform]:
    """Platforms in the named time zone, on fresh embedded stores, closed after the test."""
    opened: list[MemoryPlatform] = []

    def make(zone: str, **settings: object) -> MemoryPlatform:
        mp = MemoryPlatform(
            Settings(
                sqlite_path=tmp_path / f"{zone.replace('/', '-')}.db",
                timezone=zone,
                _env_file=None,
                **settings,
            ),
            embedder=embedder,
        )
        opened.append(mp)
        return mp

    yield make
    for mp in opened:
        mp.close()


def test_the_setting_is_read_from_the_environment_and_an_unknown_zone_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_TIMEZONE", SHANGHAI)
    assert load_settings().zone.utcoffset(ASKED_AT) == timedelta(hours=8)
    monkeypatch.delenv("MEMORY_TIMEZONE")
    assert load_settings().timezone == "UTC"
    for wrong in ("Mars/Olympus", "+08:00", "../../etc/passwd"):
        monkeypatch.setenv("MEMORY_TIMEZONE", wrong)
        with pytest.raises(ConfigurationError, match=r"MEMORY_TIMEZONE.*Asia/Shanghai"):
            load_settings()


@pytest.mark.parametrize(("zone", "offset"), [(SHANGHAI, 8), ("UTC", 0)])
def test_a_time_with_no_zone_is_the_deployments(
    make_platform: MakePlatform, zone: str, offset: int
) -> None:
    mp = make_platform(zone)
    stored_at = datetime(2025, 11, 5, 7, 30, tzinfo=UTC) - timedelta(hours=offset)

    [episode] = mp.store.get_episodes(USER, [mp.add_episode(USER, "到成都了", timestamp=ASKED_AT)])
    assert episode.timestamp == stored_at
    # a chat message as a dict, its time an ISO string with no zone, and one with a zone
    naive, zoned = mp.store.get_episodes(USER, mp.add_messages(USER, "s", [
        {"role": "user", "content": "先去吃火锅", "timestamp": "2025-11-05T07:31:00"},
        {"role": "user", "content": "明天去看熊猫", "timestamp": "2025-11-05T07:32:00Z"},
    ]))  # fmt: skip
    assert naive.timestamp == stored_at + timedelta(minutes=1)
    assert zoned.timestamp == datetime(2025, 11, 5, 7, 32, tzinfo=UTC)
    # a Message built in Python keeps a time with no zone for the platform to read
    built = Message(role="user", content="住在春熙路", timestamp=ASKED_AT + timedelta(minutes=3))
    [built_id] = mp.add_messages(USER, "s", [built])
    [stored] = mp.store.get_episodes(USER, [built_id])
    assert stored.timestamp == stored_at + timedelta(minutes=3)
    if offset:  # midnight of year 1 in Shanghai is in year 0 in UTC: no date to store
        eve = {"role": "user", "content": "x", "timestamp": "0001-01-01T00:00:00"}
        with pytest.raises(InvalidInputError) as refused:
            mp.add_messages(USER, "s", [eve])
        assert refused.value.field == "messages[0].timestamp"

    # a time_range of datetimes with no zone is the deployment's day, and results show
    # their times on its clock
    mp.wait_for_indexing(USER)
    day = {"start": datetime(2025, 11, 5), "end": datetime(2025, 11, 5, 23, 59)}
    found = mp.search(USER, "成都", time_range=day, reference_time=ASKED_AT, min_relevance=0)
    assert episode.id in [r.id for r in found]
    assert next(r for r in found if r.id == episode.id).time == "2025-11-05 07:30"


# Two dinners equally like the question, stored with zoned (UTC) times as a chat backend
# sends them: the first on the 4th in Shanghai (its 02:00) but the 3rd in UTC, the second
# on the 5th in Shanghai (04:00) but the 4th in UTC.
DINNERS = {
    "en": ("Had hotpot at the night market with Ben", "Had hotpot at the night market with Cara"),
    "zh": ("和小北在夜市吃了火锅", "和小卡在夜市吃了火锅"),
}
SAID = (datetime(2025, 11, 3, 18, tzinfo=UTC), datetime(2025, 11, 4, 20, tzinfo=UTC))
ASKED = {"en": "Who did I have hotpot with yesterday?", "zh": "我昨天和谁吃的火锅?"}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("zone", "yesterdays"), [(SHANGHAI, 0), ("UTC", 1)])
def test_yesterday_is_the_deployments_yesterday(
    make_platform: MakePlatform, lang: str, zone: str, yesterdays: int
) -> None:
    mp = make_platform(zone)
    ids = mp.add_episodes(USER, [
        {"text": text, "timestamp": when, "session_id": f"d{n}"}
        for n, (text, when) in enumerate(zip(DINNERS[lang], SAID, strict=True))
    ])  # fmt: skip
    mp.wait_for_indexing(USER)

    found = mp.search(USER, ASKED[lang], reference_time=ASKED_AT, expand_depth=0)

    assert found[0].id == ids[yesterdays]
    shown = {r.id: r.time for r in found}
    local = [when + timedelta(hours=8 if zone == SHANGHAI else 0) for when in SAID]
    assert shown[ids[0]] == local[0].strftime("%Y-%m-%d %H:%M")


TRIP = json.dumps(
    {
        "knowledge": [],
        "memories": [
            {"subject": "我", "memory_type": "事件", "topic": "出差", "object": "成都",
             "attributes": {"时间": "昨天"}, "importance": 0.6},
        ],
    },
    ensure_ascii=False,
)  # fmt: skip
"""The LLM's extraction of "我昨天去成都出差了": a trip whose 时间 is the turn's 昨天."""


@pytest.mark.parametrize(("zone", "day"), [(SHANGHAI, "2025-11-04"), ("UTC", "2025-11-03")])
def test_an_extraction_reads_the_session_on_the_deployments_clock(
    make_platform: MakePlatform, stub: OpenAIStub, zone: str, day: str
) -> None:
    """A turn of 07:30 in Shanghai (23:30 UTC the day before) says 昨天: the LLM is shown
    the turn's time on the deployment's clock (in an extraction and in a mid-term
    summary), and the 昨天 it writes is that day's eve."""
    mp = make_platform(zone, llm_base_url=stub.base_url, llm_max_retries=0)
    said = datetime(2025, 11, 4, 23, 30, tzinfo=UTC)
    shown = "[2025-11-05 07:30]" if zone == SHANGHAI else "[2025-11-04 23:30]"

    # a recorded session, and a transcript handed to extract_knowledge
    mp.add_episodes(USER, [{"text": "我昨天去成都出差了", "timestamp": said, "session_id": "trip"}])
    stub.reply(TRIP)
    recorded = mp.extract_session(USER, "trip")
    stub.reply(TRIP)
    given = mp.extract_knowledge(
        USER, "given", [{"role": "user", "content": "我昨天去成都出差了", "timestamp": said}]
    )

    # and a mid-term summary of the session's turns
    stub.reply(json.dumps({"summary": "出差到了成都", "keywords": [], "importance": 0.5}))
    turns = [e.id for e in mp.store.session_episodes(USER, "trip")]
    assert mp.summarize_messages(USER, "trip", turns)["status"] == "done"

    memory_ids = [*recorded["memory_ids"], *given.memory_ids]
    assert len(memory_ids) == 2
    for memory_id in memory_ids:
        assert mp.get_memory(USER, memory_id).memory.attributes == {"时间": day}
    assert len(stub.requests) == 3
    for request in stub.requests:
        assert shown in request["body"]["messages"][1]["content"]


def test_the_prompt_kit_states_the_deployments_today(make_platform: MakePlatform) -> None:
    """At any moment one of UTC+14 and UTC-11 is on another date than UTC, so a prompt
    that stated UTC's date would fail here whatever the time of day."""
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago"):
        mp = make_platform(zone)
        before = datetime.now(ZoneInfo(zone)).date().isoformat()
        prompt = mp.system_prompt("en", examples=False)
        after = datetime.now(ZoneInfo(zone)).date().isoformat()
        assert before in prompt or after in prompt


FAR_CLOCKS = {"in-kiritimati": "+14:00", "in-pago-pago": "-11:00"}
"""Two users whose chats name their clocks: at any moment one of them is on another date
than UTC, so a check of "today" on both fails whatever the time of day if it is UTC's."""


def test_a_call_naming_no_clock_is_read_on_the_clock_its_user_last_named(
    make_platform: MakePlatform,
) -> None:
    """One deployment (UTC). A chat backend sent each user's message with their clock; an
    agent's tool call, a search and the prompt kit, given no time (or an instant in
    UTC), read the user's today and 昨天 on that clock. A user whose turns name none is
    on the deployment's."""
    mp = make_platform("UTC")
    for user, offset in FAR_CLOCKS.items():
        zone = timezone(timedelta(hours=int(offset[:3])))
        mp.add_messages(user, "chat", [
            {"role": "user", "content": "我今天去了海边", "timestamp": f"2025-11-05T09:00:00{offset}"},
        ])  # fmt: skip
        mp.add_episodes(user, [{"text": "a server's note", "timestamp": "2025-11-05T23:00:00Z"}])
        assert mp.user_clock(user).utcoffset(None) == zone.utcoffset(None)

        before = datetime.now(zone).date()
        created = mp.execute_tool(user, "create_memory", {
            "subject": "我", "memory_type": "事件", "topic": "去", "object": "海边",
            "attributes": {"时间": "今天"},
        })  # fmt: skip
        prompt = mp.system_prompt("en", examples=False, user_id=user)
        after = datetime.now(zone).date()
        assert created["success"], created
        [memory] = mp.list_memories(user)
        assert memory.attributes["时间"] in {before.isoformat(), after.isoformat()}
        assert before.isoformat() in prompt or after.isoformat() in prompt

    assert mp.user_clock("only-utc-times") == mp.settings.zone
    mp.add_episodes("only-utc-times", [{"text": "x", "timestamp": "2025-11-05T09:00:00Z"}])
    assert mp.user_clock("only-utc-times") == mp.settings.zone


def test_a_search_at_an_instant_in_utc_reads_yesterday_on_the_askers_clock(
    make_platform: MakePlatform,
) -> None:
    """00:30 UTC on the 5th is 08:30 on the 5th in Shanghai: both call the 4th yesterday,
    but Shanghai's 4th holds the first dinner (its 02:00) and UTC's the second. An
    instant in UTC names no clock, so the asker's recorded one decides; a time with an
    offset, or in a named zone, decides for itself."""
    mp = make_platform("UTC")
    ids = mp.add_episodes(USER, [
        {"text": text, "timestamp": when, "session_id": f"d{n}"}
        for n, (text, when) in enumerate(zip(DINNERS["en"], SAID, strict=True))
    ])  # fmt: skip
    mp.wait_for_indexing(USER)
    instant = datetime(2025, 11, 5, 0, 30, tzinfo=UTC)

    def yesterdays(reference_time: datetime) -> str:
        found = mp.search(USER, ASKED["en"], reference_time=reference_time, expand_depth=0)
        return found[0].id

    assert yesterdays(instant) == ids[1]  # no clock recorded yet: the deployment's
    mp.add_messages(USER, "chat", [
        {"role": "user", "content": "早上好", "timestamp": "2025-11-05T08:29:00+08:00"},
    ])  # fmt: skip
    assert yesterdays(instant) == ids[0]
    assert yesterdays(instant.astimezone(timezone(timedelta(hours=1)))) == ids[1]
    # a named zone is a clock, UTC's offset notwithstanding (London in winter)
    assert yesterdays(instant.astimezone(ZoneInfo("Europe/London"))) == ids[1]


def test_the_machines_zone_is_read_from_tz_or_the_zone_database_link(tmp_path: Path) -> None:
    from memory_platform.config import machine_timezone

    assert machine_timezone({"TZ": SHANGHAI}, etc=tmp_path) == SHANGHAI
    assert machine_timezone({"TZ": ":Europe/Berlin"}, etc=tmp_path) == "Europe/Berlin"
    assert machine_timezone({"TZ": "CST-8"}, etc=tmp_path) is None  # a POSIX rule names none
    assert machine_timezone({"TZ": "../../etc/passwd"}, etc=tmp_path) is None
    assert machine_timezone({}, etc=tmp_path) is None  # nothing says: UTC stays

    database = tmp_path / "usr" / "share" / "zoneinfo" / "Asia" / "Shanghai"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"TZif")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "localtime").symlink_to(database)
    assert machine_timezone({}, etc=linked) == SHANGHAI
    copied = tmp_path / "copied"  # a copy of the zone's file, its name beside it (Debian)
    copied.mkdir()
    (copied / "localtime").write_bytes(b"TZif")
    (copied / "timezone").write_text("America/New_York\n", encoding="utf-8")
    assert machine_timezone({}, etc=copied) == "America/New_York"


def test_a_server_one_person_runs_takes_their_computers_zone_unless_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The MCP server over stdio (``memory-platform mcp``): the computer's zone where the
    configuration names none; ``MEMORY_TIMEZONE`` still decides where it is set."""
    from memory_platform.cli.services import _own_computers_zone

    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv("MEMORY_TIMEZONE", raising=False)
    monkeypatch.delenv("MEMORY_CONFIG_FILE", raising=False)
    monkeypatch.setenv("TZ", SHANGHAI)
    assert _own_computers_zone(tmp_path / "m.db") == {"timezone": SHANGHAI}
    monkeypatch.setenv("MEMORY_TIMEZONE", "Europe/Berlin")
    assert _own_computers_zone(tmp_path / "m.db") == {}


def test_a_chat_backend_names_each_users_clock_in_its_message_times(
    make_platform: MakePlatform, stub: OpenAIStub
) -> None:
    """One deployment (UTC), two users at one instant, 23:30 UTC on the 4th: for one in
    Shanghai it is 07:30 on the 5th, for one in New York 18:30 on the 4th. The chat
    backend names each user's clock in the message time, as the HTTP API asks; the
    workers, which have only the deployment's zone, read each session on its user's
    clock (extraction, a mid-term summary and its promotion), so each 昨天 is that user's,
    and a search shows the turn on it."""
    mp = make_platform("UTC", llm_base_url=stub.base_url, llm_max_retries=0)
    mp.settings.short_term.promote_after_accesses = 1
    clocks = {  # user: (the time as the backend sends it, as the LLM reads it, their 昨天)
        "in-shanghai": ("2025-11-05T07:30:00+08:00", "[2025-11-05 07:30]", "2025-11-04"),
        "in-new-york": ("2025-11-04T18:30:00-05:00", "[2025-11-04 18:30]", "2025-11-03"),
    }
    for user, (sent, shown, yesterday) in clocks.items():
        message = {"role": "user", "content": "我昨天去成都出差了", "timestamp": sent}
        [turn] = mp.add_messages(user, "trip", [message])
        [stored] = mp.store.get_episodes(user, [turn])
        assert stored.timestamp == datetime(2025, 11, 4, 23, 30, tzinfo=UTC)
        assert stored.metadata["utc_offset"] == sent[-6:]
        # a search shows the turn on that clock too, the one its 昨天 is read from
        mp.wait_for_indexing(user)
        [found] = [r for r in mp.search(user, "成都出差", min_relevance=0) if r.id == turn]
        assert f"[{found.time}]" == shown
        stub.requests.clear()

        stub.reply(TRIP)
        recorded = mp.extract_session(user, "trip")
        stub.reply(TRIP)
        given = mp.extract_knowledge(user, "given", [message])
        stub.reply(json.dumps({"summary": "出差到了成都", "keywords": [], "importance": 0.5}))
        summary = mp.summarize_messages(user, "trip", [turn])["episode_id"]
        mp.store.record_episode_access(user, [summary])
        stub.reply(TRIP)
        assert mp.promote_summaries(user)["promoted"] == 1

        assert len(stub.requests) == 4
        for request in stub.requests:
            assert shown in request["body"]["messages"][1]["content"]
        extracted = [*recorded["memory_ids"], *given.memory_ids]
        memory_ids = [m.id for m in mp.list_memories(user)]
        assert len(memory_ids) == 3 and set(extracted) < set(memory_ids)  # and the promoted
        for memory_id in memory_ids:
            assert mp.get_memory(user, memory_id).memory.attributes == {"时间": yesterday}


def test_a_time_in_utc_names_an_instant_and_a_recorded_clock_is_kept_or_refused(
    make_platform: MakePlatform,
) -> None:
    """``Z`` is how most servers write every time, so it names no clock: such a turn is
    read on the deployment's. An offset the metadata records already (an episode
    exported and imported by another tool, its time in UTC) is kept; one that is no
    offset is refused, naming the field."""
    mp = make_platform(SHANGHAI)
    in_utc, imported, naive = mp.store.get_episodes(USER, mp.add_episodes(USER, [
        {"text": "到成都了", "timestamp": "2025-11-04T23:30:00Z"},
        {"text": "先去吃火锅", "timestamp": "2025-11-04T23:31:00Z",
         "metadata": {"utc_offset": "-05:00"}},
        {"text": "住在春熙路", "timestamp": ASKED_AT},
    ]))  # fmt: skip
    assert "utc_offset" not in in_utc.metadata
    assert imported.metadata["utc_offset"] == "-05:00"
    assert "utc_offset" not in naive.metadata
    [in_india] = mp.store.get_episodes(USER, mp.add_episodes(USER, [
        {"text": "到孟买了", "timestamp": "2025-11-05T05:00:00+05:30"}
    ]))  # fmt: skip
    assert in_india.metadata["utc_offset"] == "+05:30"  # a half-hour zone keeps its minutes
    for wrong in ("+8", "Asia/Shanghai", "+24:00", "+08:60", 8):
        with pytest.raises(InvalidInputError) as refused:
            mp.add_episodes(USER, [{"text": "x", "metadata": {"utc_offset": wrong}}])
        assert refused.value.field == "episodes[0].metadata.utc_offset"
        assert "UTC offset" in refused.value.message

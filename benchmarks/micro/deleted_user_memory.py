"""Microbenchmark: what a process keeps of a user it has deleted.

A search loads the user's vectors (memories, episodes, topics, objects) and, past
``lexical_cache.INDEX_FROM_DOCUMENTS`` documents, their lexical index into the process.
``SQLiteGraphStore.delete_user`` drops them there too (``VectorCache.forget_user``,
``LexicalCache.forget_user``); before, they stayed until the caches' budgets evicted them
for other users. Fresh processes, alternating: the store as it is, and with the two
``forget_user`` made to do nothing (as before). Each writes one user of ``MEMORIES``
memories of the bench workload (with their vectors) and a second user of 1,000, searches
both, deletes the first and searches the second again. Results:
``results/deleted_user_memory.md``. ::

    .venv/bin/python benchmarks/micro/deleted_user_memory.py [MEMORIES]   # 10,000: ~2 min
"""

from __future__ import annotations

import json
import subprocess
import sys
from statistics import median

RUNS = 2

_RUN = """
import json, sys, tempfile
from pathlib import Path
from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
from memory_platform.store.lexical_cache import LexicalCache
from memory_platform.store.vector_cache import VectorCache

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")

if sys.argv[2] == "kept":
    VectorCache.forget_user = lambda self, user_id: None
    LexicalCache.forget_user = lambda self, user_id: None
with tempfile.TemporaryDirectory() as folder:
    mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
    words = {}
    populate(mp.store, mp.embedder, int(sys.argv[1]), user_id="leaving", words=words)
    populate(mp.store, mp.embedder, 1000, user_id="staying", seed=8, words=words)
    for user in ("leaving", "staying"):
        mp.search(user, "what did I buy at the supermarket", expand_depth=2, record_access=False)
    cache, lexicon = mp.store._cache, mp.store._lexicon
    before = {"rss": rss_mb(), "vectors": cache.nbytes / 2**20, "indexes": len(lexicon)}
    mp.delete_user("leaving")
    mp.search("staying", "what did I cook", expand_depth=2, record_access=False)
    after = {"rss": rss_mb(), "vectors": cache.nbytes / 2**20, "indexes": len(lexicon)}
    mp.close()
print(json.dumps({"before": before, "after": after}))
"""


def run(memories: int, mode: str) -> dict[str, dict[str, float]]:
    out = subprocess.run(
        [sys.executable, "-c", _RUN, str(memories), mode],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(memories: int) -> None:
    results: dict[str, list[dict[str, dict[str, float]]]] = {"dropped": [], "kept": []}
    for _ in range(RUNS):
        for mode in ("kept", "dropped"):
            results[mode].append(run(memories, mode))
    print(
        f"| after deleting a user of {memories:,} memories (median of {RUNS} processes) "
        "| vectors held before / after, MB | lexical indexes before / after "
        "| RSS before / after, MB |"
    )
    print("|---|---|---|---|")
    names = {"kept": "kept until evicted (before)", "dropped": "dropped with the user (now)"}
    for mode in ("kept", "dropped"):

        def mid(when: str, what: str, mode: str = mode) -> float:
            return median(r[when][what] for r in results[mode])

        print(
            f"| {names[mode]} | {mid('before', 'vectors'):.1f} / {mid('after', 'vectors'):.1f} "
            f"| {mid('before', 'indexes'):.0f} / {mid('after', 'indexes'):.0f} "
            f"| {mid('before', 'rss'):.0f} / {mid('after', 'rss'):.0f} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)

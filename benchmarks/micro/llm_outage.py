"""How long a search takes while the configured LLM endpoint is down: this tree against
another (``--against``, a checkout of an older commit), each in a fresh process.

The endpoint is a port on 127.0.0.1 that refuses connections, or one that accepts them
and never answers (an overloaded server, a dropped route). Each process stores one
memory and, with an LLM configured and the defaults otherwise, asks three questions it
holds nothing on (each asks the LLM query planner: before 2026-11-29 every search did,
since then only one that found nothing as asked), then one it answers. ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/llm_outage.py --against /tmp/before
"""

from __future__ import annotations

from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "llm_outage.md"
SEARCHES = 3

_RUN = """
import json, socket, sys, tempfile, threading, time
from pathlib import Path
from memory_platform import MemoryPlatform
from memory_platform.config import Settings

endpoint, searches = sys.argv[1], int(sys.argv[2])
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
port = listener.getsockname()[1]
if endpoint == "refusing":
    listener.close()
else:  # silent: accepts, never answers
    listener.listen(16)
    held = []
    threading.Thread(
        target=lambda: [held.append(listener.accept()) for _ in iter(int, 1)], daemon=True
    ).start()
with tempfile.TemporaryDirectory() as tmp:
    settings = Settings(
        backend="sqlite",
        sqlite_path=Path(tmp) / "m.db",
        llm_base_url=f"http://127.0.0.1:{port}/v1",
        _env_file=None,
    )
    with MemoryPlatform(settings) as mp:
        mp.create_memory("u", subject="我", memory_type="事实", topic="喜欢", object="爵士乐")
        mp.wait_for_indexing()
        mp.warm_up()  # models loaded (a search here could ask the planner)
        seconds = []
        for i in range(searches):
            started = time.perf_counter()
            nothing = mp.search("u", f"明天天气怎么样 {i}", record_access=False)
            seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
        answered = mp.search("u", "我喜欢什么音乐？", record_access=False)
        answered_s = time.perf_counter() - started
        found = bool(answered) and "爵士乐" in answered[0].text
print(json.dumps({"seconds": seconds, "answered s": answered_s, "found": found}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT, store=False)
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    lines = [
        "| endpoint | code | each question the memory holds nothing on, s | "
        "then one it answers, s | its memory found |",
        "|---|---|---|---|---|",
    ]
    for endpoint in ("refusing", "silent"):
        for name, code in trees.items():
            result = checkouts.run_on(code, _RUN, endpoint, str(SEARCHES))
            seconds = ", ".join(f"{float(s):.2f}" for s in result["seconds"])
            answered = f"{float(result['answered s']):.2f}"
            found = "yes" if result["found"] else "no"
            lines.append(f"| {endpoint} | {name} | {seconds} | {answered} | {found} |")
            print(lines[-1], flush=True)
    checkouts.write_report(
        args.out,
        __doc__,
        f"{SEARCHES} searches a process; the code before at {commits['before']}, now at "
        f"{commits['now']} and its working tree.",
        lines,
    )


if __name__ == "__main__":
    main()

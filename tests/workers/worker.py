"""A ``celery worker`` subprocess for the tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """``memory-platform worker`` (or ``beat``) as a subprocess in its own process group."""

    def __init__(
        self, env: dict[str, str], log: Path, command: str = "worker", pool: str = "threads"
    ) -> None:
        self._env = env
        self._log = log
        self._command = command
        self._pool = pool
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # the log is shared across restarts: wait for this start's line, not an earlier one
        before = self._log.read_text(errors="replace") if self._log.exists() else ""
        handle = self._log.open("ab")
        if self._command == "worker":
            args = [
                "worker",
                f"--pool={self._pool}",
                "--concurrency=2",
                "--name",
                f"test-{time.time_ns()}@%h",
            ]
            started = "ready."
        else:
            args = ["beat", "--schedule", str(self._log.with_suffix(".schedule"))]
            started = "beat: Starting"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memory_platform.cli", *args],
            cwd=ROOT, env=self._env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        # a start takes seconds; the deadline only turns a hung start into a failure that
        # shows the log, so it is far beyond what a loaded machine needs
        deadline = time.monotonic() + 600
        while self._log.read_text(errors="replace")[len(before) :].count(started) == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "the worker did not start:\n" + self._log.read_text(errors="replace")[-3000:]
                )
            time.sleep(0.2)

    def log_tail(self) -> str:
        return self._log.read_text(errors="replace")[-4000:]

    def finished_runs(self, job_id: str) -> list[str]:
        """The worker's log lines of each successful run of the task with this id
        (Celery logs ``Task name[id] succeeded in ...s: <result>`` at INFO)."""
        marker = f"[{job_id}] succeeded"
        return [
            line for line in self._log.read_text(errors="replace").splitlines() if marker in line
        ]

    def succeeded(self, task_name: str) -> int:
        """How many runs of the named task have succeeded (by the log's ``Task name[id]
        succeeded`` lines)."""
        lines = self._log.read_text(errors="replace").splitlines()
        return sum(f"{task_name}[" in line and "] succeeded" in line for line in lines)

    def pool_children(self) -> list[int]:
        """Process ids of the prefork pool's children (the processes that run tasks)."""
        assert self.proc is not None
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:  # the process ended meanwhile
                continue
            if int(fields[1]) == self.proc.pid:  # field 4 of stat: the parent's id
                children.append(int(stat.parent.name))
        return children

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

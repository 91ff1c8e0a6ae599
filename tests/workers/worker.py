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
    """A ``celery worker`` subprocess in its own process group."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self._env = env
        self._log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        handle = self._log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
             "-Q", "extraction,consolidation", "--pool=threads", "--concurrency=2",
             "--loglevel=INFO", "--without-gossip", "--without-mingle", "-n", f"test-{time.time_ns()}@%h"],
            cwd=ROOT, env=self._env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while "ready." not in self._log.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "the worker did not start:\n" + self._log.read_text(errors="replace")[-3000:]
                )
            time.sleep(0.2)

    def log_tail(self) -> str:
        return self._log.read_text(errors="replace")[-4000:]

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

"""Waiting for a background job to reach a state."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

FINISHED = frozenset({"SUCCESS", "FAILURE"})


def wait_for(
    job: Callable[[], dict[str, Any]],
    states: set[str] | frozenset[str] = FINISHED,
    timeout: float = 120,
) -> dict[str, Any]:
    """Poll ``job()`` (a status dict with ``state``) until its state is one of ``states``."""
    deadline = time.monotonic() + timeout
    while True:
        status = job()
        if status["state"] in states:
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"job still {status['state']} after {timeout}s")
        time.sleep(0.1)


def wait_until(condition: Callable[[], bool], timeout: float = 120) -> bool:
    """Poll ``condition`` until it holds; False if it still does not after ``timeout``
    seconds (a guard against a hang, not a measure of speed)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True

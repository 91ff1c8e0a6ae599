"""Waiting for a background job to reach a state."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

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


def meanwhile_held(
    holding: threading.Event,
    release: threading.Event,
    run: Callable[[], T],
    meanwhile: Callable[[], object],
) -> T:
    """Call ``run`` in a thread; once the LLM stub holds its call (``holding``, for a reply
    scripted with ``hold=release``), call ``meanwhile`` here, let the call go, and return
    what ``run`` returned (raising what it raised). The waits are guards against a hang."""
    done: dict[str, Any] = {}

    def target() -> None:
        try:
            done["value"] = run()
        except BaseException as exc:  # handed to the caller below
            done["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    try:
        assert holding.wait(180), "the LLM was never asked"
        meanwhile()
    finally:
        release.set()
        thread.join(180)
    assert not thread.is_alive()
    if "error" in done:
        raise done["error"]
    return done["value"]

"""The per-user Redis lock of the workers, on a real Redis."""

from __future__ import annotations

import threading

import redis

from memory_platform.jobs import renewable_lock


def test_the_heartbeat_thread_can_renew_the_lock_a_task_took(redis_url: str) -> None:
    """A task takes its user's lock and a heartbeat thread renews it while the task runs.
    A renewal from that other thread must work, or the lock lapses under a long task and
    a second task of the same user runs alongside it."""
    client = redis.Redis.from_url(redis_url)
    lock = renewable_lock(client, "lock-test", ttl=30, wait=0)
    assert lock.acquire()
    # as if half the TTL went by; 15 s left, so a slow machine cannot let it lapse first
    client.pexpire("memory-platform:lock:lock-test", 15_000)
    errors: list[BaseException] = []

    def heartbeat() -> None:
        try:
            lock.reacquire()
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    beat = threading.Thread(target=heartbeat)
    beat.start()
    beat.join()

    assert errors == []
    assert client.pttl("memory-platform:lock:lock-test") > 15_000  # renewed to the full TTL
    rival = renewable_lock(client, "lock-test", ttl=30, wait=0)
    assert not rival.acquire(blocking=False)  # still held against another task
    lock.release()
    assert rival.acquire(blocking=False)
    rival.release()

"""Server notifications that fail a test on the Neo4j leg (issue 12: none on a real server).

The driver logs every notification the server returns on the ``neo4j.notifications``
logger (warnings at WARNING, the rest at INFO), with the notification object as the
record's argument. :func:`collecting_notifications` gathers them for the length of a test;
:func:`offence` says which of them the project promises never to cause: deprecations and
cartesian products (an INFORMATION-level performance notification). Other warnings do
not fail: on a fresh database every statement naming a label, relationship type or
property that no node has yet draws an "unknown ..." warning, which is expected (and
which the store asks the server not to send: ``store.neo4j.QUIET_NOTIFICATIONS``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NotificationCollector", "collecting_notifications", "offence"]

LOGGER = "neo4j.notifications"
CARTESIAN_PRODUCT = "03N90"
"""The GQLSTATUS of a cartesian product between disconnected patterns."""


def _name(value: Any) -> str:
    """An enum's value, or the text itself, in upper case."""
    return str(getattr(value, "value", value) or "").upper()


def offence(notification: Any) -> str | None:
    """Why a logged notification fails the test, or None if it does not."""
    description = str(getattr(notification, "status_description", "") or "").lower()
    if _name(getattr(notification, "classification", None)) == "DEPRECATION":
        return "deprecation"
    if (
        getattr(notification, "gql_status", None) == CARTESIAN_PRODUCT
        or "cartesian product" in description
    ):
        return "cartesian product"
    return None


class NotificationCollector(logging.Handler):
    """Keeps every notification record the driver logs."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def offences(self) -> list[str]:
        """One line per notification that fails the test: why, then the driver's text."""
        out = []
        for record in self.records:
            args = record.args if isinstance(record.args, tuple) else ()
            notification = getattr(args[0], "notification", None) if args else None
            reason = offence(notification)
            if reason is not None:
                out.append(f"{reason}: {record.getMessage()}")
        return out


@contextmanager
def collecting_notifications() -> Iterator[NotificationCollector]:
    """Collect the driver's notification records (INFO included) while the block runs."""
    logger = logging.getLogger(LOGGER)
    collector = NotificationCollector()
    previous = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(collector)
    try:
        yield collector
    finally:
        logger.removeHandler(collector)
        logger.setLevel(previous)

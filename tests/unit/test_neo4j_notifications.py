"""The Neo4j leg's notification check, fed the driver's own notification objects as a
5.26 server's status metadata makes them (no server needed)."""

from __future__ import annotations

import logging

import pytest
from neo4j._debug._notification_printer import NotificationPrinter
from neo4j._work.summary import GqlStatusObject

from tests.support.neo4j_notifications import collecting_notifications


def status(gql: str, description: str, code: str, kind: str, severity: str) -> dict[str, object]:
    """A notification's status metadata as a 5.26 server sends it."""
    return {
        "gql_status": gql,
        "status_description": description,
        "neo4j_code": f"Neo.ClientNotification.Statement.{code}",
        "title": description.split(". ", 1)[-1],
        "diagnostic_record": {"_classification": kind, "_severity": severity},
    }


CARTESIAN = status(
    "03N90",
    "info: cartesian product. The disconnected patterns `(a), (b)` build a cartesian product.",
    "CartesianProduct", "PERFORMANCE", "INFORMATION",
)  # fmt: skip
DEPRECATED = status(
    "01N00",
    "warn: feature deprecated. CALL subquery without a variable scope clause is deprecated.",
    "FeatureDeprecationWarning", "DEPRECATION", "WARNING",
)  # fmt: skip
UNKNOWN_PROPERTY = status(  # a fresh database's warning for a property no node has yet
    "01N52",
    "warn: property key does not exist. The property `invalid_at` does not exist.",
    "UnknownPropertyKeyWarning", "UNRECOGNIZED", "WARNING",
)  # fmt: skip
UNBOUNDED = status(
    "03N91",
    "info: unbounded variable length pattern. The provided pattern is unbounded.",
    "UnboundedVariableLengthPattern", "PERFORMANCE", "INFORMATION",
)  # fmt: skip


def log_as_the_driver_does(metadata: dict[str, object]) -> None:
    notification = GqlStatusObject._from_status_metadata(metadata)
    level = logging.WARNING if notification.severity.value == "WARNING" else logging.INFO
    logging.getLogger("neo4j.notifications").log(
        level,
        "Received notification from DBMS server: %s",
        NotificationPrinter(notification, "MATCH (a), (b) RETURN a, b", one_line=True),
    )


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [(CARTESIAN, "cartesian product"), (DEPRECATED, "deprecation"), (UNKNOWN_PROPERTY, None),
     (UNBOUNDED, None)],
)  # fmt: skip
def test_deprecations_and_cartesian_products_are_offences(
    metadata: dict[str, object], reason: str | None
) -> None:
    with collecting_notifications() as collector:
        log_as_the_driver_does(metadata)

    assert len(collector.records) == 1  # INFO-level notifications are collected too
    offences = collector.offences()
    if reason is None:
        assert offences == []
    else:
        (line,) = offences
        assert line.startswith(f"{reason}: Received notification from DBMS server")
        assert "MATCH (a), (b)" in line  # names the statement


def test_collecting_leaves_the_logger_as_it_was() -> None:
    logger = logging.getLogger("neo4j.notifications")
    before = (logger.level, list(logger.handlers))
    with collecting_notifications():
        pass
    log_as_the_driver_does(DEPRECATED)  # after the block: not collected, no handler left

    assert (logger.level, list(logger.handlers)) == before

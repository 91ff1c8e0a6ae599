"""The Celery application (``-A workers.celery_app``), configured from ``MEMORY_*`` settings.

The configuration is read when Celery first needs it (``on_configure``), not at import,
so importing this module has no side effects.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from memory_platform.config import load_settings
from memory_platform.errors import ConfigurationError
from memory_platform.jobs import celery_config

app = Celery("memory_platform", include=["workers.tasks"])


@app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    settings = load_settings()
    if not settings.redis_url:
        raise ConfigurationError(
            "the workers need MEMORY_REDIS_URL (e.g. redis://localhost:6379/0)"
        )
    sender.conf.update(celery_config(settings))

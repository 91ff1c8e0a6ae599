"""Celery workers for the slow work after a chat session ends.

Start one with ``celery -A workers.celery_app worker -Q extraction,consolidation`` and
the schedule with ``celery -A workers.celery_app beat``; both read the same ``MEMORY_*``
settings as the library (``MEMORY_REDIS_URL`` is required). The tasks are thin: they call
the :class:`memory_platform.MemoryPlatform` facade.
"""

"""Celery workers for the slow work after a chat session ends (see docs/architecture.md).

The Celery application and its tasks arrive with the background-work milestone; until
then the package only reserves the place the deployment files point at.
"""

"""Adapters for agent frameworks; each needs its extra (``pip install 'memory-platform[langchain]'``)."""

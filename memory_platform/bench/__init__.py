"""Benchmarks and evaluations, runnable from the CLI (``memory-platform eval`` / ``bench``)."""

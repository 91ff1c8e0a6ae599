"""``python -m memory_platform.cli`` is the ``memory-platform`` command."""

from . import main

main()

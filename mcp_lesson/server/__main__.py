"""``python -m mcp_lesson.server``: the course's calculator (see :mod:`.calculator`)."""

from mcp_lesson.server.calculator import main

main()

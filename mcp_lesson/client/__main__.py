"""``python -m mcp_lesson.client``: the course's client (see :mod:`.cli`)."""

import sys

from mcp_lesson.client.cli import main

sys.exit(main())

"""``python -m mcp_lesson.client URL``: the course's HTTP client (see :mod:`.http`)."""

import sys

from mcp_lesson.client.http import main

sys.exit(main())

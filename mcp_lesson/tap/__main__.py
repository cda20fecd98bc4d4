"""``python -m mcp_lesson.tap``: the tap's command line (cli.py)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

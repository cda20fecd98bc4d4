"""``python -m mcp_lesson.tap``: the tap's command line (cli.py)."""

import sys

from mcp_lesson.tap.cli import main

if __name__ == "__main__":
    sys.exit(main())

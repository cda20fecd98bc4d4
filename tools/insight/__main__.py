"""``python -m tools.insight --course classroom ASSIGNMENT...`` (``make insight``): the page of
what the class missed, for each graded assignment named (default: every one with verdicts)."""

import sys

from tools.insight.build import main

sys.exit(main())

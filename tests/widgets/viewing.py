"""What the widgets' tests share: messages, hostile text, and a kernel's event loop for
the tests of typing.

No browser and no kernel: ipywidgets objects work as plain Python objects, and what the
page would show is in their ``.value``.
"""

import asyncio
import json
import re
import time

from processes import patience

from mcp_lesson.widgets import INSTANT_LIMIT

REQUEST = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
IMG = "<img src=x onerror=alert(1)>"
HOSTILE = [
    IMG,
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "<iframe src=javascript:alert(1)>",
    "</pre><b>bold</b>",
]


def sendable(widget):
    """The kernel sends widget values as UTF-8 JSON; that must always work."""
    json.dumps(widget.value, ensure_ascii=False).encode("utf-8")


def tags(markup):
    """The names of all tags in some markup (what the browser would build)."""
    return set(re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", markup))


ALLOWED_TAGS = {"div", "p", "span", "pre", "b", "table", "thead", "tbody", "tr", "th", "td"}


LONG = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": IMG * (INSTANT_LIMIT // 20)}},
    }
)


def in_a_kernel_loop(steps):
    """Run ``steps`` (a coroutine function) in an event loop, as ipykernel does."""
    asyncio.run(steps())


async def settled(classifier, judged, within=30):
    """Wait (at most ``within`` s, scaled by the tests' patience, to never hang) until the
    classifier has judged ``judged`` texts."""
    deadline = time.monotonic() + patience(within)
    while classifier.judged < judged and time.monotonic() < deadline:
        await asyncio.sleep(0.01)  # (a poll's pause, not a limit)

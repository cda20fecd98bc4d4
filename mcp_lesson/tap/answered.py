"""When a streamed answer is whole for its client: the requests of a POST, each struck off as
its response passes on the answer's SSE stream.

The SDKs close a POST's stream once it holds their responses, before the server ends it; a
client that leaves then left after the whole answer, and the HTTP tap records no
``client_gone`` for it. A GET's stream, or a POST of notifications alone, awaits nothing and is
whole only when the server ends it. What is a request and what a response is the course's
classification (:func:`mcp_lesson.rules.classification.classify`); the text is read with the
one strict JSON reader.
"""

import json

from mcp_lesson.protocol.strict_json import parse
from mcp_lesson.rules.classification import classify


def _ids(data, kind):
    """The ids (as JSON text: 1 and "1" differ) of the messages of ``kind`` in ``data`` (the
    text of a message or of a batch)."""
    value, _ = parse(data)
    messages = value if isinstance(value, list) else [value]
    return {json.dumps(m["id"]) for m in messages if classify(m)[0] == kind}


class Awaited:
    """The ids of the requests a POST's ``body`` holds (none for another method's, or a body
    that is not JSON), until each has its response."""

    def __init__(self, body, method="POST"):
        self._ids = _ids(body, "request") if body and method == "POST" else set()
        self.whole = False

    def strike(self, data):
        """Strike off the requests that ``data`` (an event's text) answers."""
        if self._ids:
            self._ids -= _ids(data, "response")
            self.whole = not self._ids

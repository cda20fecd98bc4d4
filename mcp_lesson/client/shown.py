"""What the command line (:mod:`.cli`) prints of a server's answers, one line each: text as
text (control characters escaped, never sent raw to a terminal), and what it does not print
(an image, audio, a blob) named by its type, MIME type and size or URI.

Every value is cut at :data:`SHOWN` characters unless the user asked for full output
(``limit=None``).
"""

import json

from mcp_lesson.exercises.calling import one_line

#: Most characters of a server's text printed on one line, unless full output is asked for.
SHOWN = 200
_ALL = 1 << 62  # "no limit", as one_line takes it


class Shown:
    """Turns answers into lines, cut at ``limit`` characters (``None``: never cut)."""

    def __init__(self, limit=SHOWN):
        self.limit = _ALL if limit is None else limit

    def __call__(self, value):
        """One value on one line: text as it is, anything else as JSON."""
        return one_line(
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), self.limit
        )

    def part(self, part):
        """A part of content (a tool's result, a prompt's message): its text, or what it is."""
        if not isinstance(part, dict):
            return "[content that is no object, not shown]"
        if part.get("type") == "text":
            return self(str(part.get("text", "")))
        kind = part.get("type")
        said = [str(kind) if isinstance(kind, str) else "content of no type"]
        resource = part.get("resource") if isinstance(part.get("resource"), dict) else part
        if (
            isinstance(resource.get("text"), str) and resource is not part
        ):  # an embedded text resource
            return f"[{self(resource.get('uri', '?'))}] {self(resource['text'])}"
        if isinstance(resource.get("mimeType"), str):
            said.append(resource["mimeType"])
        for key in ("data", "blob"):
            if isinstance(resource.get(key), str):
                said.append(f"{_decoded_size(resource[key]):,} bytes")
        if isinstance(resource.get("uri"), str):
            said.append(resource["uri"])
        return "[" + ", ".join(self(word) for word in said) + ", not shown]"

    def result(self, result):
        """A tool's result: its content's parts, or its structured content, or the whole result."""
        content = result.get("content") if isinstance(result.get("content"), list) else []
        shown = [self.part(part) for part in content]
        words = " | ".join(shown) if shown else self(result.get("structuredContent", result))
        return ("tool error: " if result.get("isError") else "") + words

    def contents(self, result):
        """What ``resources/read`` answered: each of its ``contents``, text or named."""
        contents = result.get("contents") if isinstance(result.get("contents"), list) else []
        shown = []
        for item in contents:
            if not isinstance(item, dict):
                shown.append("[content that is no object, not shown]")
            elif isinstance(item.get("text"), str):
                shown.append(self(item["text"]))
            else:
                shown.append(self.part({"type": "blob", "resource": item}))
        return " | ".join(shown) if shown else "no contents"

    def messages(self, result):
        """What ``prompts/get`` answered: each message as ``role: content``."""
        messages = result.get("messages") if isinstance(result.get("messages"), list) else []
        shown = []
        for message in messages:
            message = message if isinstance(message, dict) else {}
            content = message.get("content")
            parts = content if isinstance(content, list) else [content]
            shown.append(
                f"{self(str(message.get('role', '?')))}: " + " ".join(self.part(p) for p in parts)
            )
        return " | ".join(shown) if shown else "no messages"

    def named(self, items, key="name", also=None):
        """The names of listed items; a resource's URI (or a template's) after its name, and
        ``also(item)`` where it says something (a tool's read-only mark)."""
        said = []
        for item in items:
            name = self(item.get(key, "?"))
            uri = item.get("uri", item.get("uriTemplate"))
            if isinstance(uri, str) and uri != item.get(key):
                name += f" ({self(uri)})"
            extra = also(item) if also else ""
            said.append(name + (f" [{extra}]" if extra else ""))
        return ", ".join(said) or "none"

    def notification(self, message):
        """A server's notification: a log line as its level, logger and data; others by method."""
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "notifications/message":
            logger = f" {self(params['logger'])}" if isinstance(params.get("logger"), str) else ""
            return f"log {self(str(params.get('level', '?')))}{logger}: {self(params.get('data'))}"
        if self.limit == _ALL and params:
            return f"notification: {self(method)} {self(params)}"
        return f"notification: {self(method)}"


def _decoded_size(data):
    data = data.strip()
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))

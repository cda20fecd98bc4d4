"""What the course's client does the same over HTTP (:mod:`.http`) and over stdio
(:mod:`.over_stdio`): who it says it is, what it answers a server's requests, and the
lists a first look asks for (tools, resources, prompts), page after page.

A transport's client subclasses :class:`ClientBase` and gives it ``request(method,
params)`` (the result, or :class:`ServerError`), ``revision`` and, once open, ``server``
(the ``initialize`` result, or 2026-07-28's ``server/discover``).
"""

from mcp_lesson.core.errors import error_response
from mcp_lesson.core.transport import CAPABILITIES_KEY, STATELESS, VERSION_KEY
from mcp_lesson.protocol.codes import METHOD_NOT_FOUND
from mcp_lesson.version import __version__

#: The revision the client asks for in its handshake.
HANDSHAKE = "2025-11-25"
#: Who the client says it is.
CLIENT_INFO = {"name": "mcp-lesson-client", "version": __version__}
#: What it can do: answer elicitation (form mode, applying defaults) and list roots.
CAPABILITIES: dict[str, dict] = {"elicitation": {"form": {}}, "roots": {}}
#: Seconds to wait for any one answer (or a stream's next bytes).
TIMEOUT = 30.0
#: Where 2026-07-28's ``server/discover`` result names the server (in its ``_meta``).
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
#: Pages of one list the client reads at most (a server whose cursor never ends).
MAX_PAGES = 1000
#: Longest message the client reads, in bytes (an answer, a line, or one event of a stream).
MAX_MESSAGE = 16 * 2**20
#: The levels of ``notifications/message``, lowest first (``server/utilities/logging.mdx``).
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: Where 2026-07-28 asks for log lines: a request's ``_meta`` (there is no ``logging/setLevel``).
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"


class ServerError(Exception):
    """The server answered a request with a JSON-RPC error, or not as the transport allows."""

    def __init__(self, words, error=None, status=None):
        super().__init__(words)
        #: The ``error`` member of the server's error response, when there was one.
        self.error = error
        #: The HTTP status of the answer (None over stdio).
        self.status = status

    @property
    def code(self):
        return self.error.get("code") if isinstance(self.error, dict) else None


def read_only(tool):
    """True when the tool's annotations say ``readOnlyHint: true`` (the only tools a client may
    call unasked: a hint left out means the tool may change its environment)."""
    annotations = tool.get("annotations") if isinstance(tool, dict) else None
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def sample_arguments(schema):
    """Arguments for a tool, from its ``inputSchema``: each property's default, else a value of its type."""
    samples = {
        "integer": 1,
        "number": 1,
        "string": "text",
        "boolean": False,
        "array": [],
        "object": {},
        "null": None,
    }
    properties = schema.get("properties") if isinstance(schema, dict) else None
    arguments = {}
    for name, rule in (properties if isinstance(properties, dict) else {}).items():
        rule = rule if isinstance(rule, dict) else {}
        if "default" in rule:
            arguments[name] = rule["default"]
        elif isinstance(rule.get("enum"), list) and rule["enum"]:
            arguments[name] = rule["enum"][0]
        else:
            kind = rule.get("type")
            arguments[name] = samples.get(
                kind[0] if isinstance(kind, list) and kind else kind, "text"
            )
    return arguments


def elicitation_answer(params):
    """What the client answers an ``elicitation/create``: accept with the schema's defaults, or decline.

    Form mode only; a request of another mode (a URL to open) is declined.
    """
    if not isinstance(params, dict) or params.get("mode", "form") != "form":
        return {"action": "decline"}
    schema = params.get("requestedSchema")
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    required = schema.get("required", []) if isinstance(schema, dict) else []
    if not isinstance(properties, dict) or not isinstance(required, list):
        return {"action": "decline"}
    content = {
        name: rule["default"]
        for name, rule in properties.items()
        if isinstance(rule, dict) and "default" in rule
    }
    if any(name not in content for name in required):
        return {"action": "decline"}
    return {"action": "accept", "content": content}


def reply_to(message):
    """The client's answer to a server's request: ``ping`` with ``{}``, ``roots/list`` with no
    roots, ``elicitation/create`` by :func:`elicitation_answer`, anything else with -32601."""
    method, params = message["method"], message.get("params")
    if method == "ping":
        return {"jsonrpc": "2.0", "id": message["id"], "result": {}}
    if method == "roots/list":
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"roots": []}}
    if method == "elicitation/create":
        return {"jsonrpc": "2.0", "id": message["id"], "result": elicitation_answer(params)}
    return error_response(message["id"], METHOD_NOT_FOUND, f"Method not found: {method}")


class ClientBase:
    """The lists and calls of a first look, over any transport (see the module)."""

    revision = HANDSHAKE
    server = None
    #: The level of log lines asked for at 2026-07-28, sent in every request's ``_meta``.
    log_level = None

    def _first_look(self, known):
        """The handshake (the 2025-11-25 generation: ``initialize``, the revision the server
        agreed, one of ``known``, then ``notifications/initialized``), or at 2026-07-28
        ``server/discover``."""
        if self.revision >= STATELESS:
            self.server = self.request("server/discover")
            return
        self.server = self.request(
            "initialize",
            {
                "protocolVersion": self.revision,
                "capabilities": CAPABILITIES,
                "clientInfo": CLIENT_INFO,
            },
        )
        agreed = self.server.get("protocolVersion") if isinstance(self.server, dict) else None
        if agreed not in known or agreed >= STATELESS:
            raise ServerError(
                f"the server agreed to revision {agreed!r}, which this client does not speak"
            )
        self.revision = agreed
        self.notify("notifications/initialized")

    @property
    def server_info(self):
        """``{"name": ..., "version": ...}`` as the server gave it (``serverInfo``, or 2026-07-28's ``_meta``)."""
        server = self.server if isinstance(self.server, dict) else {}
        meta = server.get("_meta") if isinstance(server.get("_meta"), dict) else {}
        info = server.get("serverInfo", meta.get(SERVER_INFO_KEY))
        return info if isinstance(info, dict) else {}

    def offers(self, capability):
        """True when the server announced ``capability`` (``"tools"``, ``"resources"``, ``"prompts"``...)."""
        server = self.server if isinstance(self.server, dict) else {}
        capabilities = server.get("capabilities")
        return isinstance(capabilities, dict) and capabilities.get(capability) not in (None, False)

    def _pages(self, method, key):
        found, cursor = [], None
        for _ in range(MAX_PAGES):
            page = self.request(method, {"cursor": cursor} if cursor else None)
            items = page.get(key) if isinstance(page, dict) else None
            found += (
                [item for item in items if isinstance(item, dict)]
                if isinstance(items, list)
                else []
            )
            cursor = page.get("nextCursor") if isinstance(page, dict) else None
            if not cursor:
                return found
        raise ServerError(f"{method}: still a next page after {MAX_PAGES} pages")

    def list_tools(self):
        """Every tool the server lists, page after page."""
        return self._pages("tools/list", "tools")

    def list_resources(self):
        """Every resource the server lists (``resources/list``), page after page."""
        return self._pages("resources/list", "resources")

    def list_prompts(self):
        """Every prompt the server lists (``prompts/list``), page after page."""
        return self._pages("prompts/list", "prompts")

    def list_resource_templates(self):
        """Every resource template the server lists (``resources/templates/list``), page after page."""
        return self._pages("resources/templates/list", "resourceTemplates")

    def call_tool(self, name, arguments=None):
        """The result of ``tools/call`` (a tool that fails still answers, with ``isError``)."""
        return self.request("tools/call", {"name": name, "arguments": arguments or {}})

    def read_resource(self, uri):
        """The result of ``resources/read``: the resource's ``contents``."""
        return self.request("resources/read", {"uri": uri})

    def get_prompt(self, name, arguments=None):
        """The result of ``prompts/get``: the prompt's ``messages`` (``arguments``: names to strings)."""
        return self.request(
            "prompts/get", {"name": name, **({"arguments": arguments} if arguments else {})}
        )

    def set_log_level(self, level):
        """Ask for log lines at ``level`` and above: ``logging/setLevel`` in a session; from
        2026-07-28, which has none, ``_meta`` of every later request says it."""
        if level not in LOG_LEVELS:
            raise ValueError(f"the log levels are {', '.join(LOG_LEVELS)}, not {level!r}")
        if self.revision >= STATELESS:
            self.log_level = level
        else:
            self.request("logging/setLevel", {"level": level})

    def _cancelled(self, request_id, method, why):
        """Tell the server the client gave up on ``request_id`` (``notifications/cancelled``; never
        for ``initialize``, which a client must not cancel); a failure to tell it is passed over."""
        if method == "initialize":
            return
        try:
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": why})
        except Exception:
            pass

    def _with_meta(self, params):
        """``params`` with 2026-07-28's ``_meta`` (the revision and the client's capabilities)."""
        if self.revision < STATELESS:
            return params
        params = dict(params or {})
        params["_meta"] = {
            **params.get("_meta", {}),
            VERSION_KEY: self.revision,
            CAPABILITIES_KEY: CAPABILITIES,
            **({LOG_LEVEL_KEY: self.log_level} if self.log_level else {}),
        }
        return params

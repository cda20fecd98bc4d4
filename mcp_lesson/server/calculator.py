"""The capstone's real MCP server: a tiny calculator built with the official SDK.

Run it as ``python -m mcp_lesson.server``. By default it speaks MCP over
stdio: one JSON message per line on stdin, one per line on stdout, logs on
stderr. Lesson 06 starts it as a subprocess (see :mod:`mcp_lesson.client.stdio`)
and talks to it with the messages the course builds.

``python -m mcp_lesson.server --http --port N`` serves the same calculator
over the SDK's Streamable HTTP transport instead, at
``http://127.0.0.1:N/mcp`` (:data:`HTTP_HOST`, :data:`HTTP_PATH`; the port
is :data:`HTTP_PORT` when none is given). It listens on the loopback
address only, and the SDK's DNS-rebinding protection, which it turns on
for 127.0.0.1, refuses a request whose ``Origin`` is not an ``http://``
page of 127.0.0.1, localhost or [::1] with a port (403), or whose ``Host``
is not one of those three with a port (421). Both generations of the transport are served on that one endpoint,
chosen per request by its ``MCP-Protocol-Version`` header: 2025-11-25 and
earlier (an ``initialize`` handshake, then an ``Mcp-Session-Id`` that every
later request must carry) and 2026-07-28 (stateless: each request carries
``params._meta`` and the ``MCP-Protocol-Version``, ``Mcp-Method`` and
``Mcp-Name`` headers that mirror its body). ``--port 0`` takes a free port.
Once the server accepts connections it writes one line to stderr,
``listening on http://127.0.0.1:PORT/mcp``, so that whoever started it
can read the address. Ctrl-C or SIGTERM stops it.

Two tools, over either transport:

* ``add(a, b)``: the sum of two integers;
* ``calculator(expression)``: the value of an arithmetic expression such as
  ``"2 + 2"`` or ``"(1 + 2) * 3 / 4"``. The text is parsed, never evaluated as
  Python: only numbers, ``+ - * / // % **`` and parentheses are understood.

and over HTTP a third, so that one answer can arrive as a stream of several
messages:

* ``count(to)``: counts from 1 to ``to`` (at most :data:`MAX_COUNT`) and
  answers ``to``. When the request asks for progress (a ``progressToken`` in
  ``params._meta``), each step is sent first as a ``notifications/progress``,
  so the answer comes as a ``text/event-stream`` of ``to`` progress events
  and the response last. Without a token it is an ordinary answer. Stdio
  keeps its two tools (lesson 06 lists them).

The arguments are checked strictly, by the course's own rule that a JSON type
is what it says: ``a``, ``b`` and ``to`` must be JSON integers (``true``,
``1.0``, ``"1"`` and ``" 7 "`` are refused, never turned into numbers), and
``expression`` must be a JSON string. The SDK checks arguments with pydantic,
whose default "lax" mode would convert all four; the tools declare pydantic's
``StrictInt`` and ``StrictStr`` instead. A refused argument gets what the SDK
gives any argument that fails its check: a normal result with
``"isError": true`` whose text names the argument and the type it wanted. So
does a sum of more than :data:`MAX_DIGITS` digits, which a Python client
could not read back, and a ``count`` outside 1 to :data:`MAX_COUNT`.

Everything here uses the SDK the way its documentation intends
(``MCPServer`` and its ``@tool()`` decorator, its stdio transport, its
``streamable_http_app`` served by uvicorn as its own ``run`` does); the code
of our own is the arithmetic (:func:`evaluate` and :func:`add_integers`), the
announcement of the address, and one fix at end of input on stdio: the SDK
ends at once when its input closes and drops the answers still being
computed, so input piped in all at once lost its last reply.
:func:`serve_stdio` holds the end of input back until every request read is
answered. Importing this module does not import the SDK; :func:`build_server`
and :func:`serve_http` do.
"""

import ast
import math
import operator

#: The name the server gives in its ``initialize`` answer (``serverInfo.name``).
SERVER_NAME = "mcp-lesson-calculator"

#: Longest expression the calculator reads.
MAX_EXPRESSION = 200
#: Largest exponent allowed in ``a ** b`` (so ``9 ** 9 ** 9`` cannot eat the machine).
MAX_EXPONENT = 100
#: Largest integer result, in bits (about 300 digits).
MAX_BITS = 1000
#: Most digits in a sum from ``add``: the longest integer that Python's ``json``
#: (by default) and the SDK's own JSON parser read.
MAX_DIGITS = 4300
_TOO_MANY_DIGITS = 10**MAX_DIGITS
#: Highest number ``count`` counts to (one progress notification a step).
MAX_COUNT = 100

#: The only address the HTTP server listens on: this machine's loopback.
HTTP_HOST = "127.0.0.1"
#: The port when ``--http`` is given without ``--port`` (the SDK's own default).
HTTP_PORT = 8000
#: The path of the MCP endpoint.
HTTP_PATH = "/mcp"
#: Seconds that stopping the HTTP server waits for open answers before it cuts them.
HTTP_SHUTDOWN_WAIT = 3

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_SIGNS = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def evaluate(expression):
    """The value of an arithmetic expression, or ``ValueError`` saying what is wrong.

    >>> evaluate("2 + 2")
    4
    >>> evaluate("(1 + 2) * 3 / 4")
    2.25
    """
    if not isinstance(expression, str):
        raise ValueError("the expression must be text")
    if len(expression) > MAX_EXPRESSION:
        raise ValueError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError("this is not an arithmetic expression") from None
    try:
        value = _value(tree.body)
    except ZeroDivisionError:
        raise ValueError("division by zero") from None
    except (OverflowError, RecursionError, MemoryError):
        raise ValueError("the result is too large") from None
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise ValueError("the result is too large")
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no inf or NaN
        raise ValueError("the result is too large")
    return value


def _value(node):
    if isinstance(node, ast.Constant):
        number = node.value
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return number
        raise ValueError("only numbers are allowed")
    if isinstance(node, ast.UnaryOp) and type(node.op) in _SIGNS:
        return _SIGNS[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ValueError(f"exponents above {MAX_EXPONENT} are not allowed")
        result = _OPERATORS[type(node.op)](left, right)
        if isinstance(result, complex):  # (-8) ** 0.5
            raise ValueError("the result is not a real number")
        if isinstance(result, int) and result.bit_length() > MAX_BITS:
            raise OverflowError
        return result
    raise ValueError("only numbers, + - * / // % ** and parentheses are allowed")


def add_integers(a, b):
    """The sum ``a + b`` of two integers, or ``ValueError`` when it has over :data:`MAX_DIGITS` digits.

    >>> add_integers(2, 40)
    42
    """
    total = a + b
    if abs(total) >= _TOO_MANY_DIGITS:
        raise ValueError(f"the sum has more than {MAX_DIGITS} digits")
    return total


def build_server(*, count=False):
    """Create the calculator server (an SDK ``MCPServer`` with two strict tools).

    With ``count=True`` it has the ``count`` tool as well (the HTTP server does).
    """
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import StrictInt, StrictStr

    from mcp_lesson.version import __version__

    server = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions="A calculator for the mcp_lesson course: use add or calculator.",
        log_level="WARNING",
    )

    log = _serve_logging(server)

    @server.tool()
    async def add(a: StrictInt, b: StrictInt, ctx: Context) -> int:
        """Add two integers."""
        try:
            total = add_integers(a, b)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        await log(ctx, f"add: {a} + {b} = {total}")
        return total

    @server.tool()
    async def calculator(expression: StrictStr, ctx: Context) -> int | float:
        """Compute an arithmetic expression such as "2 + 2" or "(1 + 2) * 3 / 4"."""
        try:
            value = evaluate(expression)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        await log(ctx, f"calculator: {expression.strip()} = {value}")
        return value

    if count:

        @server.tool(name="count")
        async def count_to(to: StrictInt, ctx: Context) -> int:
            """Count from 1 to `to`, reporting each step as progress when the request asks for it."""
            if not 1 <= to <= MAX_COUNT:
                raise ToolError(f"to must be from 1 to {MAX_COUNT}")
            for step in range(1, to + 1):
                await ctx.report_progress(step, to, f"{step} of {to}")
            return to

    _answer_as_the_spec_names(server)
    return server


def _answer_as_the_spec_names(server):
    """An unknown tool or prompt gets the JSON-RPC error -32602, as 2025-11-25 names it.

    ``server/tools.mdx`` lists "Unknown tools" among the protocol errors, with
    a -32602 example; ``server/prompts.mdx`` says "Invalid prompt name:
    -32602". The SDK (``mcp`` 2.3) answers the first with a result marked
    ``isError`` and the second with code 0; here both handlers are wrapped,
    so the name is looked up first and an unknown one is refused as the spec
    says. A tool that exists and fails still answers ``isError: true``.
    """
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    lowlevel = server._lowlevel_server  # the SDK's own in-memory client reaches it the same way

    def refusing_unknown(method, kind, names):
        entry = lowlevel.get_request_handler(method)

        async def handler(ctx, params):
            if params.name not in {item.name for item in await names()}:
                raise MCPError(INVALID_PARAMS, f"Unknown {kind}: {params.name}")
            return await entry.handler(ctx, params)

        lowlevel.add_request_handler(method, entry.params_type, handler)

    refusing_unknown("tools/call", "tool", server.list_tools)
    refusing_unknown("prompts/get", "prompt", server.list_prompts)


_STATELESS_FIRST = "2026-07-28"  # the first revision without a handshake

#: The levels of ``notifications/message``, lowest first (2025-11-25 ``server/utilities/logging.mdx``).
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: The level each tool call's log line is sent at.
TOOL_LOG_LEVEL = "info"
#: Sessions whose log level the server remembers (the oldest forgotten first).
LOG_LEVEL_SESSIONS = 1000


def _serve_logging(server):
    """The ``logging`` capability of 2025-11-25: ``logging/setLevel``, then log lines at that level and above.

    A session hears no log lines until its client sets a level (the spec
    leaves the default to the server; lessons 06 and 09 count the lines of
    a conversation, which stay as they were). After ``logging/setLevel``
    each tool call sends one ``notifications/message`` at
    :data:`TOOL_LOG_LEVEL` when that is at or above the level set. An
    unknown level is refused with -32602 by the SDK's check of the params.
    On 2026-07-28, where ``logging/setLevel`` is gone, a request opts in
    with its ``_meta`` and the SDK does the filtering.

    Returns the tools' ``log(ctx, text)``.
    """
    import collections
    import warnings

    from mcp_types import EmptyResult, SetLevelRequestParams

    levels = collections.OrderedDict()  # the connection -> the lowest level it hears

    def connection(request):
        # Over HTTP a session is its Mcp-Session-Id; over stdio there is one connection (None).
        headers = getattr(request.request, "headers", None)
        return headers.get("mcp-session-id") if headers is not None else None

    async def set_level(ctx, params):
        levels[connection(ctx)] = params.level
        levels.move_to_end(connection(ctx))
        while len(levels) > LOG_LEVEL_SESSIONS:
            levels.popitem(last=False)
        return EmptyResult()

    async def log(ctx, text):
        """Send ``text`` at :data:`TOOL_LOG_LEVEL`, if this request's client hears that level."""
        request = ctx.request_context
        chosen = levels.get(connection(request))
        modern = request.protocol_version >= _STATELESS_FIRST
        if not modern and (
            chosen is None or LOG_LEVELS.index(TOOL_LOG_LEVEL) < LOG_LEVELS.index(chosen)
        ):
            return
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # deprecated at 2026-07-28 (SEP-2577), current at 2025-11-25
            await ctx.log(TOOL_LOG_LEVEL, text, logger_name=SERVER_NAME)

    server._lowlevel_server.add_request_handler(
        "logging/setLevel", SetLevelRequestParams, set_level
    )
    return log


#: Longest wait, in seconds, at end of input for the answers still owed.
END_OF_INPUT_WAIT = 30.0


class _Owed:
    """The requests read and not yet answered, counted by id.

    A request that the client cancels (``notifications/cancelled``) is owed
    nothing: the SDK drops its answer.
    """

    def __init__(self):
        import anyio

        self._counts = {}
        self._settled = anyio.Event()
        self._settled.set()

    @staticmethod
    def _key(request_id):
        # The SDK matches a cancel for "7" with the request 7, so this does too.
        return str(request_id)

    def add(self, request_id):
        import anyio

        key = self._key(request_id)
        self._counts[key] = self._counts.get(key, 0) + 1
        if self._settled.is_set():
            self._settled = anyio.Event()

    def settle(self, request_id):
        key = self._key(request_id)
        if key not in self._counts:
            return
        self._counts[key] -= 1
        if not self._counts[key]:
            del self._counts[key]
        if not self._counts:
            self._settled.set()

    async def wait(self):
        await self._settled.wait()


class _Wrapped:
    """A stream of the SDK's, wrapped: closing and ``async with`` go to the stream itself."""

    def __init__(self, stream, owed):
        self._stream = stream
        self._owed = owed

    async def aclose(self):
        await self._stream.aclose()

    def close(self):
        self._stream.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.aclose()
        return None


class _ReadUntilAnswered(_Wrapped):
    """The SDK's stdin stream, with its end held back until every request read is answered.

    The SDK's dispatcher cancels the requests still in flight as soon as its
    input ends, so a request piped in just before the end of input was read
    but never answered. This stream notes each request read, and at end of
    input waits (at most :data:`END_OF_INPUT_WAIT` seconds) until
    :class:`_WriteNotingAnswers` has seen each one answered.
    """

    @property
    def last_context(self):  # the sender's context, which the SDK's own stream carries
        return getattr(self._stream, "last_context", None)

    async def receive(self):
        import anyio
        from mcp_types import JSONRPCNotification, JSONRPCRequest

        try:
            item = await self._stream.receive()
        except anyio.EndOfStream:
            with anyio.move_on_after(END_OF_INPUT_WAIT):
                await self._owed.wait()
            raise
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCRequest):
            self._owed.add(message.id)
        elif (
            isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled"
        ):
            params = message.params if isinstance(message.params, dict) else {}
            if params.get("requestId") is not None:
                self._owed.settle(params["requestId"])
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _WriteNotingAnswers(_Wrapped):
    """The SDK's stdout stream, noting each answer once the writer has taken it."""

    async def send(self, item):
        from mcp_types import JSONRPCError, JSONRPCResponse

        await self._stream.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, (JSONRPCResponse, JSONRPCError)) and message.id is not None:
            self._owed.settle(message.id)


async def serve_stdio(server):
    """Serve ``server`` over stdio, as the SDK's ``run("stdio")`` does, answering every request read.

    The one difference: at end of input the SDK would end at once and drop
    the answers still being computed (piping a whole conversation in lost
    the last reply); here the end of input waits for them first.
    """
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server  # the SDK's own in-memory client reaches it the same way
    owed = _Owed()
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            _ReadUntilAnswered(read_stream, owed),
            _WriteNotingAnswers(write_stream, owed),
            lowlevel.create_initialization_options(),
        )


def http_url(port):
    """The address of the MCP endpoint on ``port``: ``http://127.0.0.1:PORT/mcp``."""
    return f"http://{HTTP_HOST}:{port}{HTTP_PATH}"


def serve_http(port=HTTP_PORT, announce=None):
    """Serve the calculator (with ``count``) over Streamable HTTP on 127.0.0.1 until SIGINT or SIGTERM.

    It is the SDK's ``streamable_http_app`` served by uvicorn, as the SDK's
    ``run("streamable-http")`` serves it (sessions for 2025-11-25, the
    stateless entry for 2026-07-28, answers as JSON or as an SSE stream),
    with two differences: ``port`` may be 0 (the system picks a free one),
    and once uvicorn accepts connections ``announce`` (by default a line on
    stderr) is called with the endpoint's address. A port already taken
    ends the process with uvicorn's error and status 3. Ctrl-C stops it
    quietly; SIGTERM too, after which the process ends by that signal, as
    uvicorn arranges.
    """
    import sys

    import uvicorn

    if announce is None:

        def announce(url):
            print(f"listening on {url}", file=sys.stderr, flush=True)

    class _Announcing(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                announce(http_url(self.servers[0].sockets[0].getsockname()[1]))

    from mcp_lesson.server import resumption

    app = build_server(count=True).streamable_http_app(
        streamable_http_path=HTTP_PATH,
        host=HTTP_HOST,
        event_store=resumption.install(),
        retry_interval=resumption.RETRY_MS,
    )
    # h11 and asyncio by name: uvicorn would take httptools and uvloop, which the tap brings,
    # and httptools chunks its answers to HTTP/1.0 clients (which have no chunked coding);
    # these are what the course's figures are of.
    config = uvicorn.Config(
        app,
        host=HTTP_HOST,
        port=port,
        log_level="warning",
        http="h11",
        loop="asyncio",
        timeout_graceful_shutdown=HTTP_SHUTDOWN_WAIT,
    )
    try:
        _Announcing(config).run()
    except KeyboardInterrupt:  # Ctrl-C: uvicorn has shut down already and raises it again
        pass


def _port(text):
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0 picks a free one)")
    return port


def main(argv=None):
    """Serve over stdio until stdin closes (Ctrl-D) or Ctrl-C; with ``--http``, over HTTP.

    At end of input every request already read is answered before the
    server exits (see :func:`serve_stdio`). The SDK reads stdin in a thread
    that a KeyboardInterrupt cannot stop, so Ctrl-C gets the default action
    (end the process) instead of an exception. ``--http [--port N]`` runs
    :func:`serve_http` instead.
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m mcp_lesson.server",
        description="The course's calculator MCP server, over stdio (the default) "
        f"or over Streamable HTTP on {HTTP_HOST} only.",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help=f"serve Streamable HTTP at {http_url('PORT')} instead of stdio",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=None,
        help=f"the port for --http (default {HTTP_PORT}; 0 picks a free one, "
        "and the address is written to stderr)",
    )
    args = parser.parse_args(argv)
    if args.http:
        serve_http(HTTP_PORT if args.port is None else args.port)
        return
    if args.port is not None:
        parser.error("--port goes with --http")

    import signal

    import anyio

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    anyio.run(serve_stdio, build_server())


if __name__ == "__main__":
    main()

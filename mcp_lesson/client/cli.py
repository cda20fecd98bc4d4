"""``python -m mcp_lesson.client``: the course's client on the command line.

``python -m mcp_lesson.client URL`` (Streamable HTTP, :mod:`.http`) or
``python -m mcp_lesson.client --stdio -- COMMAND [ARGS...]`` (a server it starts,
:mod:`.over_stdio`) connects, prints who the server is, its tools, and the resources
and prompts it offers (where it announced them); ``--call NAME [ARGUMENTS]`` calls one
tool (ARGUMENTS a JSON object); ``--try-tools`` calls each listed tool once, with
arguments made from its input schema (what the conformance suite's client scenarios
ask of a client); a tool or a list that fails gets a line on stderr and the rest still
runs (the exit status is 1). Content it does not print (an image, audio, a resource) is
named, with its type, MIME type, size or URI. ``--timeout`` is how long it waits for
more of an answer.
"""

import json
import sys

from mcp_lesson.exercises.calling import one_line
from mcp_lesson.core.transport import HTTP_REVISIONS
from mcp_lesson.protocol.revisions import REVISIONS
from mcp_lesson.client.common import HANDSHAKE, TIMEOUT, ServerError, sample_arguments
from mcp_lesson.client.http import _http_errors, connect
from mcp_lesson.client.over_stdio import connect_stdio

PROG = "python -m mcp_lesson.client"
#: Most characters of a server's text printed on one line.
SHOWN = 200


def _shown(value):
    return one_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), SHOWN)


def _part_named(part):
    """A part of a tool's content that the command line does not show, named: its type, and
    what it is (a MIME type and size, a URI)."""
    kind = part.get("type")
    said = [str(kind) if isinstance(kind, str) else "content of no type"]
    if isinstance(part.get("mimeType"), str):
        said.append(part["mimeType"])
    if isinstance(part.get("data"), str):
        data = part["data"].strip()
        said.append(f"{len(data) * 3 // 4 - (len(data) - len(data.rstrip('='))):,} bytes")
    resource = part.get("resource") if isinstance(part.get("resource"), dict) else part
    if isinstance(resource.get("uri"), str):
        said.append(resource["uri"])
    return "[" + ", ".join(_shown(word) for word in said) + ", not shown]"


def _result_words(result):
    content = result.get("content") if isinstance(result.get("content"), list) else []
    shown = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text":
            shown.append(str(part.get("text", "")))
        elif isinstance(part, dict):
            shown.append(_part_named(part))
        else:
            shown.append("[content that is no object, not shown]")
    words = " | ".join(shown) if shown else json.dumps(result.get("structuredContent", result))
    return ("tool error: " if result.get("isError") else "") + _shown(words)


def _named(items, key="name"):
    """The names of listed items, and a resource's URI after its name."""
    said = []
    for item in items:
        name = _shown(item.get(key, "?"))
        uri = item.get("uri")
        said.append(f"{name} ({_shown(uri)})" if isinstance(uri, str) and uri != item.get(key) else name)
    return ", ".join(said) or "none"


def _parser():
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG, usage=f"{PROG} [options] URL  |  {PROG} --stdio [options] -- COMMAND [ARGS...]",
        description="Talk to an MCP server, over Streamable HTTP or stdio, with the course's own functions.")
    parser.add_argument("url", nargs="?", help="the server's MCP endpoint, such as http://127.0.0.1:8000/mcp")
    parser.add_argument("--stdio", action="store_true",
                        help="start the server given after -- and talk to it over its stdin and stdout")
    parser.add_argument("--revision", default=HANDSHAKE, choices=REVISIONS,
                        help=f"the revision to speak (default {HANDSHAKE}; 2026-07-28 is stateless; "
                             "2024-11-05 over stdio only)")
    parser.add_argument("--call", nargs="+", metavar=("NAME", "ARGUMENTS"),
                        help="call the tool NAME, with ARGUMENTS as a JSON object")
    parser.add_argument("--try-tools", action="store_true",
                        help="call each listed tool once, with arguments made from its input schema "
                             "(a tool that fails gets a line, and the others are still called)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                        help=f"how long to wait for the server to connect or to send more of an "
                             f"answer (default {TIMEOUT:g}; a slow tool needs more)")
    return parser


def _arguments(parser, argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    command = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    args = parser.parse_args(argv)
    args.command = command
    if args.stdio and not command:
        parser.error("--stdio needs the server's command after --, such as: --stdio -- uvx mcp-server-time")
    if args.stdio and args.url:
        parser.error("give a URL or --stdio -- COMMAND, not both")
    if not args.stdio and command:
        parser.error("a command after -- needs --stdio")
    if not args.stdio and not args.url:
        parser.error("give the server's URL, or --stdio -- COMMAND")
    if not args.stdio and args.revision not in HTTP_REVISIONS:
        parser.error(f"Streamable HTTP is in the revisions {', '.join(HTTP_REVISIONS)}, not in {args.revision}")
    if not args.timeout > 0:
        parser.error("--timeout must be more than 0 seconds")
    args.given = {}
    if args.call:
        if len(args.call) > 2:
            parser.error("--call takes a tool's name and one JSON object of arguments")
        if len(args.call) == 2:
            try:
                args.given = json.loads(args.call[1])
            except ValueError as exc:
                parser.error(f"the arguments are not JSON: {exc}")
            if not isinstance(args.given, dict):
                parser.error("the arguments must be a JSON object, such as '{\"a\": 1}'")
    return args


def main(argv=None):
    parser = _parser()
    args = _arguments(parser, argv)
    where = " ".join(args.command) if args.stdio else args.url
    failed = 0

    def failure(what, exc):
        nonlocal failed
        failed += 1
        print(f"{PROG}: {what} failed: {_call_failure(exc, args.timeout)}", file=sys.stderr)

    try:
        client = (connect_stdio(args.command, args.revision, timeout=args.timeout) if args.stdio
                  else connect(args.url, args.revision, timeout=args.timeout))
        with client:
            info = client.server_info
            print(f"server: {_shown(info.get('name', '?'))} {_shown(info.get('version', ''))} "
                  f"(revision {client.revision})")
            tools = client.list_tools()
            print("tools:", _named(tools))
            for capability, listing in (("resources", client.list_resources), ("prompts", client.list_prompts)):
                if not client.offers(capability):
                    continue
                try:
                    print(f"{capability}:", _named(listing()))
                except (ServerError, OSError, *_http_errors()) as exc:
                    failure(f"{capability}/list", exc)
            calls = [(args.call[0], args.given)] if args.call else []
            if args.try_tools:
                calls += [(tool["name"], sample_arguments(tool.get("inputSchema"))) for tool in tools
                          if isinstance(tool.get("name"), str)]
            for name, given in calls:
                try:
                    words = _result_words(client.call_tool(name, given))
                except (ServerError, OSError, *_http_errors()) as exc:  # one line, and on to the next
                    failure(_shown(name), exc)
                    continue
                print(f"{_shown(name)}: {words}")
            for message in client.notifications:
                print("notification:", _shown(message.get("method")))
            for note in client.notes:
                print("note:", _shown(note))
    except ServerError as exc:
        print(f"{PROG}: {_shown(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{PROG}: cannot reach {_shown(where)}: {_shown(str(exc))}", file=sys.stderr)
        return 1
    except _http_errors() as exc:  # a clear line, never a traceback
        print(f"{PROG}: {_shown(where)}: {_shown(str(exc)) or type(exc).__name__}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def _call_failure(exc, timeout):
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within --timeout {timeout:g} s ({type(exc).__name__})"
    return _shown(str(exc)) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())

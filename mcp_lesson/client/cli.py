"""``python -m mcp_lesson.client``: the course's client on the command line.

``python -m mcp_lesson.client URL`` (Streamable HTTP, :mod:`.http`) or
``python -m mcp_lesson.client --stdio -- COMMAND [ARGS...]`` (a server it starts,
:mod:`.over_stdio`) connects, prints who the server is, its tools, and the resources,
resource templates and prompts it offers (where it announced them). Then what was asked:
``--read URI`` (``resources/read``), ``--prompt NAME [ARGUMENTS]`` (``prompts/get``),
``--call NAME [ARGUMENTS]`` (``tools/call``; ARGUMENTS a JSON object, taken only when it
is one, so a URL after it stays the URL), ``--log-level LEVEL`` (``logging/setLevel``, or
2026-07-28's ``_meta``), ``--try-tools`` (each tool annotated ``readOnlyHint: true`` called
once, with arguments made from its input schema; any other only when named with
``--include NAME``: a client never calls a tool that may change something unasked, and it
says which it skipped and why). A step that fails gets a line on stderr and the rest still
runs (the exit status is 1).

``--json`` prints one JSON document of all the answers, whole; ``--full`` prints the lines
uncut. ``--header 'K: V'`` goes on every HTTP request; ``--env K=V`` into a stdio server's
environment. ``--timeout`` is how long it waits for more of an answer (then it cancels the
request: ``notifications/cancelled``); ``--max-message`` the longest answer it reads.
"""

import json
import sys

from mcp_lesson.client.common import (
    HANDSHAKE,
    LOG_LEVELS,
    MAX_MESSAGE,
    TIMEOUT,
    ServerError,
    read_only,
    sample_arguments,
)
from mcp_lesson.client.http import _http_errors, connect
from mcp_lesson.client.over_stdio import connect_stdio
from mcp_lesson.client.shown import SHOWN, Shown
from mcp_lesson.core.transport import HTTP_REVISIONS
from mcp_lesson.protocol.codes import METHOD_NOT_FOUND
from mcp_lesson.protocol.revisions import REVISIONS

PROG = "python -m mcp_lesson.client"
#: The options that take a name and, when the next word is a JSON object, its arguments.
_NAMED = {"--call": "tools/call", "--prompt": "prompts/get"}


def _parser():
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        usage=f"{PROG} [options] URL  |  {PROG} --stdio [options] -- COMMAND [ARGS...]",
        description="Talk to an MCP server, over Streamable HTTP or stdio, with the course's own functions.",
    )
    parser.add_argument(
        "url", nargs="?", help="the server's MCP endpoint, such as http://127.0.0.1:8000/mcp"
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="start the server given after -- and talk to it over its stdin and stdout",
    )
    parser.add_argument(
        "--revision",
        default=HANDSHAKE,
        choices=REVISIONS,
        help=f"the revision to speak (default {HANDSHAKE}; 2026-07-28 is stateless; "
        "2024-11-05 over stdio only)",
    )
    asked = parser.add_argument_group("what to ask, after the first look (each may be given again)")
    asked.add_argument(
        "--call",
        metavar="NAME [ARGUMENTS]",
        help="call the tool NAME; ARGUMENTS, when given, a JSON object such as '{\"a\": 1}'",
    )
    asked.add_argument(
        "--prompt",
        metavar="NAME [ARGUMENTS]",
        help="get the prompt NAME (prompts/get); ARGUMENTS a JSON object of strings",
    )
    asked.add_argument(
        "--read",
        action="append",
        default=[],
        metavar="URI",
        help="read the resource URI (resources/read)",
    )
    asked.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        help="ask for the server's log lines at LEVEL and above (logging/setLevel)",
    )
    asked.add_argument(
        "--try-tools",
        action="store_true",
        help="call each tool annotated readOnlyHint: true once, with arguments made from its "
        "input schema; the others are skipped, and named, unless given with --include",
    )
    asked.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="NAME",
        help="with --try-tools: call the tool NAME too, whatever its annotations say",
    )
    shown = parser.add_argument_group("output")
    shown.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document of every answer, whole (for jq and scripts)",
    )
    shown.add_argument(
        "--full",
        action="store_true",
        help=f"print every line whole (by default a value is cut at {SHOWN} characters)",
    )
    how = parser.add_argument_group("connection")
    how.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header sent with every request, such as 'Authorization: Bearer ...'",
    )
    how.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable added to the stdio server's environment",
    )
    how.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for the server to connect or to send more of an answer "
        f"(default {TIMEOUT:g}; a slow tool needs more); then the request is cancelled",
    )
    how.add_argument(
        "--max-message",
        type=int,
        default=MAX_MESSAGE,
        metavar="BYTES",
        help=f"the longest answer read, in bytes (default {MAX_MESSAGE:,}); "
        "a longer one is refused in one line",
    )
    return parser


def _asked(parser, argv):
    """``argv`` without ``--call`` and ``--prompt`` and what they took: ``(method, name,
    arguments)`` in order. The word after the name is taken as its arguments only when it is
    JSON (or starts as an object or an array does), so a URL after ``--call NAME`` stays the URL."""
    rest, asked, at = [], [], 0
    while at < len(argv):
        word = argv[at]
        option, _, attached = word.partition("=")
        if option not in _NAMED:
            rest.append(word)
            at += 1
            continue
        if attached or "=" in word:
            name, at = attached, at + 1
        elif at + 1 < len(argv):
            name, at = argv[at + 1], at + 2
        else:
            parser.error(f"{option} needs a name")
        given = {}
        if at < len(argv) and _json_like(argv[at]):
            try:
                given = json.loads(argv[at])
            except ValueError as exc:
                parser.error(f"the arguments of {option} {name} are not JSON: {exc}")
            if not isinstance(given, dict):
                parser.error(
                    f"the arguments of {option} {name} must be a JSON object, such as '{{\"a\": 1}}'"
                )
            at += 1
        if option == "--prompt" and not all(isinstance(value, str) for value in given.values()):
            parser.error(f"a prompt's arguments are strings: {option} {name} has one that is not")
        if not name:
            parser.error(f"{option} needs a name")
        asked.append((_NAMED[option], name, given))
    return rest, asked


def _json_like(word):
    if word.lstrip()[:1] in ("{", "["):
        return True
    try:
        json.loads(word)
    except ValueError:
        return False
    return True


def _pairs(parser, words, sep, option, example):
    pairs = {}
    for word in words:
        name, found, value = word.partition(sep)
        name = name.strip()
        if not found or not name or any(char.isspace() for char in name):
            parser.error(f"{option} takes {example}, not {word!r}")
        pairs[name] = value.strip() if sep == ":" else value
    return pairs


def _arguments(parser, argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    command = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    argv, asked = _asked(parser, argv)
    args = parser.parse_args(argv)
    args.command, args.asked = command, asked
    if args.stdio and not command:
        parser.error(
            "--stdio needs the server's command after --, such as: --stdio -- uvx mcp-server-time"
        )
    if args.stdio and args.url:
        parser.error("give a URL or --stdio -- COMMAND, not both")
    if not args.stdio and command:
        parser.error("a command after -- needs --stdio")
    if not args.stdio and not args.url:
        parser.error("give the server's URL, or --stdio -- COMMAND")
    if not args.stdio and args.revision not in HTTP_REVISIONS:
        parser.error(
            f"Streamable HTTP is in the revisions {', '.join(HTTP_REVISIONS)}, not in {args.revision}"
        )
    if not args.timeout > 0:
        parser.error("--timeout must be more than 0 seconds")
    if args.max_message < 1:
        parser.error("--max-message must be at least 1 byte")
    if args.include and not args.try_tools:
        parser.error("--include names a tool for --try-tools to call: give --try-tools too")
    if args.header and args.stdio:
        parser.error("--header is for HTTP; a stdio server takes --env")
    if args.env and not args.stdio:
        parser.error("--env is for a stdio server the client starts; over HTTP, --header")
    args.headers = _pairs(parser, args.header, ":", "--header", "'NAME: VALUE'")
    args.environment = _pairs(parser, args.env, "=", "--env", "NAME=VALUE")
    return args


def _skipped_why(tool):
    """Why ``--try-tools`` does not call ``tool`` unasked: what its annotations say."""
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    hint = annotations.get("readOnlyHint")
    said = (
        "not annotated readOnlyHint: true"
        if hint is None
        else f"annotated readOnlyHint: {json.dumps(hint)}"
    )
    if annotations.get("destructiveHint") is True:
        said += ", destructiveHint: true"
    return said


class _Session:
    """One run of the command line: what it asks, what it prints (or gathers for ``--json``)."""

    def __init__(self, args, client):
        self.args, self.client = args, client
        self.shown = Shown(None if args.full or args.json else SHOWN)
        self.document = {}
        self.failed = 0

    def say(self, line):
        if not self.args.json:
            print(line)

    def failure(self, what, exc):
        self.failed += 1
        words = _call_failure(exc, self.args.timeout, self.shown)
        print(f"{PROG}: {self.shown(what)} failed: {words}", file=sys.stderr)
        entry = {"failure": str(exc) or type(exc).__name__}
        if isinstance(exc, ServerError) and exc.error is not None:
            entry["error"] = exc.error
        return entry

    def attempt(self, what, step, *args):
        """``(True, step(*args))``, or ``(False, the failure's entry)`` after a line on stderr."""
        try:
            return True, step(*args)
        except (ServerError, OSError, *_http_errors()) as exc:
            return False, self.failure(what, exc)

    def first_look(self):
        client, shown = self.client, self.shown
        info = client.server_info
        self.document.update(server=client.server, revision=client.revision)
        self.say(
            f"server: {shown(info.get('name', '?'))} {shown(info.get('version', ''))} "
            f"(revision {client.revision})"
        )
        if self.args.log_level:
            self.log_level(self.args.log_level)
        tools = client.list_tools()
        self.document["tools"] = tools
        self.say(
            "tools: " + shown.named(tools, also=lambda tool: "read-only" if read_only(tool) else "")
        )
        lists = (
            ("resources", "resources", client.list_resources),
            ("resource templates", "resourceTemplates", client.list_resource_templates),
            ("prompts", "prompts", client.list_prompts),
        )
        for words, key, listing in lists:
            if client.offers("prompts" if key == "prompts" else "resources"):
                self.listed(words, key, listing)
        return tools

    def listed(self, words, key, listing):
        """One list of the first look, printed; a failure is a line on stderr, except a server
        with resources and no ``resources/templates/list`` (-32601): it need not have templates."""
        try:
            found = listing()
        except ServerError as exc:
            if key == "resourceTemplates" and exc.code == METHOD_NOT_FOUND:
                self.document[key] = []
                self.say(f"{words}: none (the server has no resources/templates/list)")
            else:
                self.document[key] = self.failure(key, exc)
            return
        except (OSError, *_http_errors()) as exc:
            self.document[key] = self.failure(key, exc)
            return
        self.document[key] = found
        self.say(f"{words}: {self.shown.named(found)}")

    def log_level(self, level):
        if self.client.revision < "2026-07-28" and not self.client.offers("logging"):
            self.failed += 1
            print(
                f"{PROG}: logging/setLevel not sent: the server did not announce logging",
                file=sys.stderr,
            )
            return
        done, _ = self.attempt("logging/setLevel", self.client.set_log_level, level)
        self.document["logLevel"] = level if done else None

    def ask(self, tools):
        args, client, shown = self.args, self.client, self.shown
        steps = [("resources/read", uri, {}) for uri in args.read] + list(args.asked)
        if args.try_tools:
            steps += self.tools_to_try(tools)
        answers = self.document.setdefault("answers", [])
        for method, name, given in steps:
            if method == "resources/read":
                done, found = self.attempt(name, client.read_resource, name)
                line = f"{shown(name)}: {shown.contents(found)}" if done else None
                params = {"uri": name}
            elif method == "prompts/get":
                done, found = self.attempt(f"prompt {name}", client.get_prompt, name, given)
                line = f"prompt {shown(name)}: {shown.messages(found)}" if done else None
                params = {"name": name, "arguments": given}
            else:
                done, found = self.attempt(name, client.call_tool, name, given)
                line = f"{shown(name)}: {shown.result(found)}" if done else None
                params = {"name": name, "arguments": given}
            answers.append(
                {"method": method, "params": params, "result" if done else "failed": found}
            )
            if line:
                self.say(line)

    def tools_to_try(self, tools):
        """The calls of ``--try-tools``: each read-only tool, and each named with ``--include``;
        a line for each tool skipped, and a failure for a name the server does not list."""
        included = set(self.args.include)
        steps, skipped = [], self.document.setdefault("skipped", [])
        for tool in tools:
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            if read_only(tool) or name in included:
                steps.append(("tools/call", name, sample_arguments(tool.get("inputSchema"))))
                continue
            why = _skipped_why(tool)
            skipped.append({"name": name, "why": why})
            self.say(
                f"skipped {self.shown(name)}: {why}; to call it, name it: --include {self.shown(name)}"
            )
        for name in sorted(included - {tool.get("name") for tool in tools}):
            self.failed += 1
            print(
                f"{PROG}: --include {self.shown(name)}: the server lists no such tool",
                file=sys.stderr,
            )
        return steps

    def last_words(self):
        client = self.client
        self.document.update(notifications=client.notifications, notes=client.notes)
        for message in client.notifications:
            self.say(self.shown.notification(message))
        for note in client.notes:
            self.say(f"note: {self.shown(note)}")
        if self.args.json:
            print(json.dumps(self.document, indent=2, ensure_ascii=False))


def main(argv=None):
    parser = _parser()
    args = _arguments(parser, argv)
    where = " ".join(args.command) if args.stdio else args.url
    shown = Shown(None if args.full else SHOWN)
    options = {"timeout": args.timeout, "max_message": args.max_message}
    try:
        client = (
            connect_stdio(args.command, args.revision, env=args.environment, **options)
            if args.stdio
            else connect(args.url, args.revision, headers=args.headers, **options)
        )
        with client:
            session = _Session(args, client)
            try:
                session.ask(session.first_look())
            finally:
                session.last_words()
    except ServerError as exc:
        print(f"{PROG}: {shown(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # whoever read the output stopped reading (| head): no more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit
        return 1
    except OSError as exc:
        print(f"{PROG}: cannot reach {shown(where)}: {shown(str(exc))}", file=sys.stderr)
        return 1
    except _http_errors() as exc:  # a clear line, never a traceback
        print(f"{PROG}: {shown(where)}: {shown(str(exc)) or type(exc).__name__}", file=sys.stderr)
        return 1
    return 1 if session.failed else 0


def _call_failure(exc, timeout, shown):
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within --timeout {timeout:g} s ({type(exc).__name__}); the request was cancelled"
    return shown(str(exc)) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())

"""The tap's command line (``python -m mcp_lesson.tap``)."""

import argparse
import os
import sys

from mcp_lesson.rules.classification import REVISIONS
from mcp_lesson.tap._settings import GRACE, MAX_LINE, PROG
from mcp_lesson.tap.judge import CourseJudge, load_judge
from mcp_lesson.tap.report import report
from mcp_lesson.tap.serving import serve_http
from mcp_lesson.tap.stdio import record


def _arguments(argv):
    parser = argparse.ArgumentParser(
        prog=f"python -m {PROG}",
        description="Record and judge the stdio traffic of an MCP server, or audit a recording.",
        epilog="record: python -m mcp_lesson.tap --record FILE -- COMMAND [ARGS...]   "
        "audit:  python -m mcp_lesson.tap --report FILE",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--record",
        metavar="FILE",
        help="run COMMAND behind the tap, recording its traffic to FILE (JSON Lines)",
    )
    what.add_argument("--report", metavar="FILE", help="audit the recording FILE ('-': stdin)")
    parser.add_argument(
        "--http",
        action="store_true",
        help="with --record: be a reverse proxy on 127.0.0.1 in front of the "
        "Streamable HTTP server at --to, instead of running a command",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="with --http: the port to listen on (default 0: a free one)",
    )
    parser.add_argument(
        "--to",
        metavar="URL",
        help="with --http: the server's address, such as http://127.0.0.1:8000/mcp",
    )
    parser.add_argument(
        "--judge",
        metavar="PACKAGE",
        help="judge with this package's classify_json (a folder, a folder "
        "holding my_mcp, or a module name) instead of the course's",
    )
    parser.add_argument("--append", action="store_true", help="add to FILE instead of replacing it")
    parser.add_argument(
        "--grace",
        type=float,
        default=GRACE,
        metavar="SECONDS",
        help=f"how long the server gets to exit after a side ended, before "
        f"SIGTERM (default {GRACE:g}: a server still starting when its input "
        f"ends gets time to answer)",
    )
    parser.add_argument(
        "--max-line",
        type=int,
        default=MAX_LINE,
        metavar="BYTES",
        help=f"the longest line recorded whole (default {MAX_LINE})",
    )
    parser.add_argument(
        "--revision",
        metavar="REVISION",
        help="with --report: judge under this revision ('none': the course's "
        "rules) instead of the one the two sides agreed on",
    )
    parser.add_argument(
        "--all", action="store_true", help="with --report: list every request's time"
    )
    parser.add_argument(
        "--json", action="store_true", help="with --report: the problems as JSON Lines"
    )
    if "--" in argv:
        cut = argv.index("--")
        options, command = argv[:cut], argv[cut + 1 :]
    else:
        options, command = argv, []
    args, extra = parser.parse_known_args(options)
    if args.http:
        if not args.record:
            parser.error("--http goes with --record")
        if not args.to or command or extra:
            parser.error(
                "--http passes on to a server's address, not a command: "
                "python -m mcp_lesson.tap --record FILE --http --to URL [--port N]"
            )
        if not 0 <= args.port <= 65535:
            parser.error("--port must be 0 to 65535")
        return args, command
    if args.to:
        parser.error("--to goes with --http")
    if extra and args.record:
        parser.error(
            f"give the server's command after --: python -m mcp_lesson.tap --record "
            f"{args.record} -- {' '.join(extra)}"
        )
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.record and not command:
        parser.error(
            "give the server's command after --: "
            "python -m mcp_lesson.tap --record FILE -- COMMAND [ARGS...]"
        )
    if args.report and command:
        parser.error("--report reads a recording; it runs no command")
    if args.grace < 0 or args.max_line < 1:
        parser.error("--grace must be 0 or more, --max-line 1 or more")
    if args.revision is not None:
        if args.revision.lower() == "none":
            args.revision = None
        elif args.revision not in REVISIONS:
            parser.error(
                f"unknown revision {args.revision!r}; the known ones are "
                f"{', '.join(REVISIONS)} (or 'none')"
            )
    else:
        args.revision = "agreed"
    return args, command


def main(argv=None):
    """The command line (the module docstring says what it does); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args, command = _arguments(argv)
    if args.report:
        if args.judge:
            print(
                f"--judge {args.judge} is for recording: --report judges with the course's rules "
                "(and shows where the recorded verdicts, of the judge the recording was made "
                "with, disagree)",
                file=sys.stderr,
            )
        try:
            return report(args.report, show_all=args.all, revision=args.revision, as_json=args.json)
        except BrokenPipeError:  # its reader stopped early (| head): that is no failure
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
    # From here on stdout is the protocol's: anything printed (a judge's print, say) goes to
    # stderr instead.
    sys.stdout = sys.stderr
    judge = load_judge(args.judge) if args.judge else CourseJudge()
    if args.http:
        return serve_http(
            args.to,
            args.record,
            port=args.port,
            judge=judge,
            max_line=args.max_line,
            append=args.append,
        )
    return record(
        command, args.record, judge, grace=args.grace, max_line=args.max_line, append=args.append
    )

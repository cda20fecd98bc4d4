"""The report: a recording file read (:func:`read_recording`), cut into sessions and
audited, in words or as JSON (``python -m mcp_lesson.tap --report FILE``).
"""

import base64
import json
import shlex
import sys
import time

from mcp_lesson.rules.classification import classify_json
from mcp_lesson.shared.recording import sessions
from mcp_lesson.tap._settings import DIRECTIONS, MAX_LINE, PROG, SENDER
from mcp_lesson.tap.audit import (
    _is_number,
    _quoted,
    agreed_revision,
    answer_times,
    audit,
    revisions_by_scope,
    show_id,
)
from mcp_lesson.tap.entries import ended_words
from mcp_lesson.tap.judge import CourseJudge, _short

#: Longest line of a recording the report reads: a whole entry, the tap's longest line
#: (MAX_LINE) kept and escaped as JSON escapes it (at most 6 bytes a byte), with room to spare.
MAX_ENTRY = 6 * MAX_LINE + 65536


def read_recording(path):
    """``(entries, complaints)``: the entries of a recording file (each with ``_line``, its line
    in the file), and a plain sentence for each line that is no entry."""
    entries, complaints = [], []
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        for number, raw in enumerate(_lines(stream, MAX_ENTRY), 1):
            if raw is None:
                complaints.append(
                    f"line {number} of the recording is longer than {MAX_ENTRY:,} bytes "
                    "(no tap writes one so long): the report reads no further"
                )
                break
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except RecursionError:
                complaints.append(
                    f"line {number} of the recording is nested too deeply to read; left out"
                )
                continue
            except ValueError:
                complaints.append(f"line {number} of the recording is not JSON; left out")
                continue
            if not isinstance(entry, dict) or not ("direction" in entry or "event" in entry):
                complaints.append(
                    f"line {number} of the recording is no entry (no direction "
                    "and no event); left out"
                )
                continue
            entry["_line"] = number
            entries.append(entry)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return entries, complaints


def _lines(stream, limit):
    """The lines of ``stream`` (bytes), at most ``limit`` bytes each; ``None`` for a longer
    one, which is never read whole (``--report /dev/zero`` ends at once)."""
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        yield raw if len(raw) <= limit or raw.endswith(b"\n") else None


def _duration(seconds):
    if seconds is None:
        return "never answered"
    if seconds < 1:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds:.2f} s"


def _json_line(record):
    """``record`` as one line of JSON, an id of thousands of digits included (the strict
    reader takes up to 20,000; Python writes no more than 4,300 unless told)."""
    try:
        return json.dumps(record, ensure_ascii=False)
    except ValueError:
        import sys

        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return json.dumps(record, ensure_ascii=False)
        finally:
            sys.set_int_max_str_digits(limit)


def report(path, show_all=False, revision="agreed", as_json=False, out=None):
    """Print the audit of the recording at ``path``; returns the exit status: 0 with no
    problem (warnings allowed), 1 with problems, 2 when the file cannot be read."""
    out = out or sys.stdout
    try:
        entries, complaints = read_recording(path)
    except OSError as exc:
        print(f"{PROG}: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print(f"{PROG}: {path} holds no recorded entries", file=sys.stderr)
        for complaint in complaints:
            print(f"{PROG}: {complaint}", file=sys.stderr)
        return 2
    cut = sessions(entries)
    total = 0
    if not as_json:
        print(f"recording {path}: {len(cut)} session{'s' if len(cut) > 1 else ''}", file=out)
        for complaint in complaints:
            print(f"  {complaint}", file=out)
    for number, session in enumerate(cut, 1):
        if revision == "agreed":
            chosen, how = agreed_revision(session)
        else:
            chosen = revision
            how = f"revision {revision} as asked" if revision else "the course's rules, as asked"
        problems = audit(session, revision)
        disagreements = _judge_disagreements(session)
        total += sum(problem.get("severity") not in ("warning", "note") for problem in problems)
        if as_json:
            for problem in problems:
                print(_json_line({"session": number, **problem}), file=out)
            continue
        if revision == "agreed":
            how += _other_revisions(session, chosen)
        _print_session(
            out, number, session, chosen, how, problems, disagreements, show_all, revision
        )
    return 1 if total else 0


def _other_revisions(session, chosen):
    """Words for the HTTP sessions and exchanges that agreed on another revision than ``chosen``."""
    counts = {}
    for scope, (revision, _) in revisions_by_scope(session).items():
        if revision != chosen:
            kind = "session" if scope[0] == "session" else "exchange without a session"
            counts[(revision, kind)] = counts.get((revision, kind), 0) + 1
    if not counts:
        return ""
    plural = {"session": "sessions", "exchange without a session": "exchanges without a session"}
    said = ", ".join(
        f"{revision} in {count} HTTP {kind if count == 1 else plural[kind]}"
        for (revision, kind), count in sorted(counts.items())
    )
    return f"; each judged by its own: {said}"


def _print_session(
    out, number, session, revision, how, problems, disagreements, show_all, asked="agreed"
):
    start = next((entry for entry in session if entry.get("event") == "start"), {})
    lines = [entry for entry in session if entry.get("direction") in DIRECTIONS]
    ends = [entry for entry in session if entry.get("event") in ("server_exited",)]
    command = start.get("command")
    wall = start.get("wall")
    try:
        began = (
            time.strftime(" at %Y-%m-%d %H:%M:%S UTC", time.gmtime(wall))
            if _is_number(wall)
            else ""
        )
    except (OverflowError, OSError, ValueError):  # a forged time: 1e20 s is no date
        began = ""
    shown = "a server"
    if isinstance(command, list):
        shown = _short(shlex.join(map(str, command)), 160)
    elif start.get("transport") == "http":
        shown = f"the HTTP tap at {start.get('listen')} in front of {start.get('to')}"
    print(f"session {number}: {shown}{began}", file=out)
    if ends:
        stops = [entry for entry in session if entry.get("event") in ("stopping", "signal")]
        print(f"  the server {ended_words(ends[-1], stops)}", file=out)
    counts = {
        direction: sum(entry["direction"] == direction for entry in lines)
        for direction in DIRECTIONS
    }
    unit = "message" if start.get("transport") == "http" else "line"
    unit += "" if len(lines) == 1 else "s"
    print(
        f"  {len(lines)} {unit}: {counts['to_server']} from the client, "
        f"{counts['from_server']} from the server; judged by {start.get('judge', '?')}",
        file=out,
    )
    print(f"  revision: {revision or 'none'} ({how})", file=out)
    warnings = [problem for problem in problems if problem.get("severity") == "warning"]
    notes = [problem for problem in problems if problem.get("severity") == "note"]
    problems = [
        problem for problem in problems if problem.get("severity") not in ("warning", "note")
    ]
    compressed = {}
    for entry in lines:
        if entry["direction"] == "from_server" and isinstance(entry.get("content_encoding"), str):
            compressed[entry["content_encoding"]] = compressed.get(entry["content_encoding"], 0) + 1
    if compressed:
        said = ", ".join(
            f"{count} with {_short(coding, 30)}" for coding, count in sorted(compressed.items())
        )
        print(
            f"  compressed answers: {said} (Content-Encoding, for a client that asked: recorded as "
            "they travelled, judged decoded)",
            file=out,
        )
    for found, name in ((problems, "problem"), (warnings, "warning"), (notes, "note")):
        if found:
            print(f"  {len(found)} {name}{'s' if len(found) > 1 else ''}:", file=out)
            for problem in found:
                where = f"line {problem['line']}" if problem["line"] is not None else "at the end"
                print(f"    {where}: {problem['detail']}", file=out)
    if not problems:
        print(
            "  no problems: every request answered once, nothing else answered, "
            f"{'only JSON-RPC' if unit.startswith('message') else 'clean stdout'}, every message "
            f"judged valid{' (the notes say which were not judged)' if notes else ''}",
            file=out,
        )
    if disagreements:
        print(
            f"  the judge ({start.get('judge')}) and the course's rules disagree on "
            f"{len(disagreements)} line{'s' if len(disagreements) > 1 else ''}:",
            file=out,
        )
        for line in disagreements[: 10 if not show_all else None]:
            print(f"    {line}", file=out)
    times = answer_times(session, asked)
    if times:
        print(
            f"  time to each answer ({len(times)} request{'s' if len(times) > 1 else ''}):",
            file=out,
        )
        if start.get("command"):  # a stdio server, whose client may write before it is ready
            print(
                "    (the first answers include the server's start-up: a client that pipes its "
                "requests sends them before the server reads)",
                file=out,
            )
        shown = times if show_all or len(times) <= 30 else times[:30]
        for row in shown:
            print(
                f"    line {row['line']}: the {SENDER[row['direction']]}'s request "
                f"{show_id(row['id'])} "
                f"({row['method']}): {_duration(row['seconds'])}",
                file=out,
            )
        if len(shown) < len(times):
            print(f"    ... {len(times) - len(shown)} more (--all lists every one)", file=out)
        spans = sorted(row["seconds"] for row in times if row["seconds"] is not None)
        if len(spans) > 1:
            import statistics

            print(
                f"    median {_duration(statistics.median(spans))}, slowest {_duration(spans[-1])}",
                file=out,
            )


def _judge_disagreements(session):
    """Lines where the recorded verdict (a user's judge) is not the course's."""
    start = next((entry for entry in session if entry.get("event") == "start"), {})
    if start.get("judge", CourseJudge.name) == CourseJudge.name:
        return []
    found = []
    for entry in session:
        if entry.get("direction") not in DIRECTIONS or entry.get("truncated"):
            continue
        if "judge_error" in entry:
            found.append(
                f"line {entry['_line']}: the judge failed ({_short(str(entry['judge_error']), 200)})"
            )
            continue
        try:
            raw = (
                base64.b64decode(entry["bytes"], validate=True)
                if "bytes" in entry
                else entry.get("text", "")
            )
        except (ValueError, TypeError):
            found.append(f"line {entry['_line']}: its recorded bytes are not Base64, so not judged")
            continue
        if not isinstance(raw, (str, bytes)):
            continue
        course = list(classify_json(raw))
        theirs = [entry.get("kind"), entry.get("code")]
        if theirs != course:
            found.append(
                f"line {entry['_line']}: {_quoted(entry)}: the judge says "
                f"({show_id(theirs[0])}, {show_id(theirs[1])}), the course's rules "
                f"({show_id(course[0])}, {show_id(course[1])})"
            )
    return found

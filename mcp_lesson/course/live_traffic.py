"""Lesson 10's helpers: recordings of live traffic, read, shown as a table, drawn
(mcp_lesson.shared.recording), audited in words, and the tap put in front of a server.

* :func:`read_recording`, :func:`stored_recording` and :func:`store_recordings`:
  a recording file, and the recordings stored with the package;
* :func:`show_recording`: a table; :func:`show_diagram`: the Mermaid diagram;
* :func:`audit_of` and :func:`show_audit`: a learner's ``audit`` on a recording,
  in words;
* :func:`tap_command`, :func:`tapped_config` and :func:`play_script`: the tap
  in front of any server.

They are at :mod:`mcp_lesson.course` too, where the lesson imports them from.
"""

import json
import re
import sys
from pathlib import Path

from mcp_lesson.exercises.agreement import outcome as _outcome
from mcp_lesson.exercises.calling import NOT_YET, exception_text, one_line, python_text
from mcp_lesson.shared.recording import SENDERS, sequence_diagram

#: The arrow of each direction, as lesson 06 printed them.
ARROWS = {"to_server": "->", "from_server": "<-"}
#: The stored recordings lesson 10 falls back on where it cannot record (the browser, a
#: grading sandbox), in ``mcp_lesson/data/``: what its own live cells recorded, with what
#: changes from run to run (process ids, wall times, paths, ports) taken out.
RECORDINGS = "live_traffic.json"


def read_recording(path):
    """The entries of the recording at ``path`` (JSON Lines, as the tap writes it), in order.

    A line that is not a JSON object (a recording cut off in the middle of a
    line, say) is left out; so is an empty line.
    """
    entries = []
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entries.append(entry)
    return entries


def stored_recording(name):
    """The stored recording ``name`` ("stdio", "http" or "sloppy"), a fresh list every call."""
    from importlib import resources

    text = resources.files("mcp_lesson").joinpath("data", RECORDINGS).read_text(encoding="utf-8")
    return json.loads(text)["recordings"][name]


def _scrubbed(entry):
    """An entry without what changes from run to run (the command's path, pids, ports, times
    of day, memory), for storing."""
    entry = {
        key: value
        for key, value in entry.items()
        if key not in ("pid", "wall", "max_rss_kb", "_line")
    }
    if isinstance(entry.get("command"), list) and entry["command"]:
        entry["command"] = ["python", *entry["command"][1:]]
    for key in ("listen", "to"):
        if isinstance(entry.get(key), str):
            entry[key] = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", entry[key])
    return entry


def store_recordings(recordings, path=None):
    """Write ``recordings`` ({name: entries}) as the stored ones (:data:`RECORDINGS`): how the
    file is made again after the SDK or a server changed (run lesson 10, then call this with
    its three recordings)."""
    path = Path(path) if path else Path(__file__).resolve().parents[1] / "data" / RECORDINGS
    data = {
        "about": "Recordings made by lesson 10's live cells (notebooks/10_live_traffic.ipynb), "
        "which the lesson shows where it cannot record: the SDK's client over stdio and "
        "over HTTP, and the sloppy server. Made again with "
        "mcp_lesson.course.store_recordings.",
        "recordings": {
            name: [_scrubbed(entry) for entry in entries] for name, entries in recordings.items()
        },
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


def comparable(conversation):
    """What two recordings of the same conversation share: each line's direction, text, HTTP
    method or status and SSE fields, and each event's name (and HTTP status), in order."""
    shown = []
    for entry in conversation:
        http = entry.get("http") if isinstance(entry.get("http"), dict) else {}
        if entry.get("direction") in SENDERS:
            shown.append(
                (
                    entry["direction"],
                    entry.get("text"),
                    http.get("method"),
                    http.get("status"),
                    json.dumps(entry.get("sse"), sort_keys=True),
                )
            )
        else:
            shown.append(("event", entry.get("event"), entry.get("status")))
    return shown


def _cut(text, limit):
    """``text`` on one line (control and direction characters written as escapes, as
    every table of the course shows them), cut to ``limit``."""
    return one_line(text, limit, mark=" ...")


def _verdict_words(entry):
    kind, code = entry.get("kind"), entry.get("code")
    if kind is None:
        return "(not judged)"
    return str(kind) if code is None else f"{kind} {code}"


def _via(entry):
    """The HTTP part of an entry, in a few words: "POST", "200", "200 sse"; "" over stdio."""
    http = entry.get("http")
    if not isinstance(http, dict):
        return ""
    if "method" in http:
        return str(http["method"])
    return f"{http.get('status')}" + (" sse" if "sse" in entry else "")


def _event_words(entry):
    name = entry.get("event", "?")
    if name in ("http_request", "http_response"):
        said = entry.get("method") or entry.get("status")
        more = " stream" if entry.get("stream") else ""
        return f"({name} {said}{more})"
    if name == "server_exited":
        return f"(server_exited, status {entry.get('status')})"
    if name == "signal":
        return f"(signal {entry.get('signal')})"
    return f"({name})"


def show_recording(conversation, width=64):
    """Print a recording as a table: each entry's place (counted from 1, events included), its
    direction (``->`` from the client, ``<-`` from the server), the tap's verdict and the line
    (cut at ``width``); an event is shown by its name in brackets. No times, no process ids."""
    try:
        entries = list(conversation)
    except TypeError:
        print("(no recording here)")
        return
    print(f"{'place':>5}  {'':2} {'via':8} {'verdict':18} line")
    for place, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            print(f"{place:>5}  (not an entry: {python_text(entry, 40)})")
        elif entry.get("direction") in SENDERS:
            print(
                f"{place:>5}  {ARROWS[entry['direction']]} {_via(entry):8} "
                f"{_verdict_words(entry):18} {_cut(entry.get('text', ''), width)}"
            )
        else:
            print(f"{place:>5}  {'':2} {'':8} {_event_words(entry)}")


def show_diagram(conversation, problems=()):
    """Display :func:`sequence_diagram` as a Mermaid diagram (JupyterLab draws it); outside
    Jupyter, print its text."""
    try:
        text = sequence_diagram(list(conversation), problems)
    except TypeError:
        print("(no recording here)")
        return
    try:
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover - outside Jupyter
        print(text)
        return
    display(Markdown(f"```mermaid\n{text}\n```"))


def audit_of(fn, conversation):
    """``fn(conversation)``, called safely: ``(problems, None)`` when it returns a list of
    ``(place, problem)`` pairs, else ``(None, what went wrong, in words)``."""
    name = getattr(fn, "__name__", "audit")
    status, value = _outcome(fn, (conversation,))
    if status == "todo":
        return None, f"{name}: {NOT_YET}"
    if status == "raised":
        return None, f"{name} raises {exception_text(value, 200)}"
    if type(value) is not list or not all(type(item) is tuple and len(item) == 2 for item in value):
        return None, f"{name} gave {python_text(value, 100)}, not a list of (place, problem) pairs"
    return value, None


def show_audit(fn, conversation, width=56):
    """Print what ``fn`` (an ``audit``) finds in a recording: one line per problem, with the
    line at its place; "no problems" when there is none. Never raises."""
    try:
        entries = list(conversation)
    except TypeError:
        print("(no recording here)")
        return
    problems, trouble = audit_of(fn, entries)
    if trouble:
        print(trouble)
        return
    name = getattr(fn, "__name__", "audit")
    if not problems:
        print(f"{name}: no problems")
        return
    print(f"{name}: {len(problems)} problem{'s' * (len(problems) != 1)}")
    for place, problem in problems:
        entry = entries[place - 1] if type(place) is int and 0 < place <= len(entries) else {}
        where = ""
        if isinstance(entry, dict) and entry.get("direction") in SENDERS:
            where = f"{ARROWS[entry['direction']]} {_cut(entry.get('text', ''), width)}"
        named = problem if type(problem) is str else python_text(problem, 30)
        print(f"  place {python_text(place, 10):>3}  {named:24} {where}")


def tap_command(recording, *command, python=None):
    """The command that runs ``command`` (a stdio server) behind the tap, recording to
    ``recording``: ``[python, "-m", "mcp_lesson.tap", "--record", recording, "--", *command]``."""

    return [
        python or sys.executable,
        "-m",
        "mcp_lesson.tap",
        "--record",
        str(recording),
        "--",
        *map(str, command),
    ]


def tapped_config(config, recordings, python="python"):
    """A host's configuration (``{"mcpServers": {name: {"command": ..., "args": [...], ...}}}``)
    with the tap put in front of every server, each recording to ``<recordings>/<name>.jsonl``:
    a new dict, each entry's command now ``python -m mcp_lesson.tap --record ... -- <the
    server's command and args>``, its other members (``env``...) as they were. ``python`` is
    the Python that has the course installed (its full path, in practice)."""
    servers = {}
    for name, server in config.get("mcpServers", {}).items():
        entry = dict(server)
        command = [entry.pop("command"), *entry.pop("args", [])]
        tapped = tap_command(f"{str(recordings).rstrip('/')}/{name}.jsonl", *command, python=python)
        servers[name] = {"command": tapped[0], "args": tapped[1:], **entry}
    return {**config, "mcpServers": servers}


def play_script(command, script, recording, timeout=15.0):
    """Run the stdio server ``command`` behind the tap (recording to ``recording``) and play
    ``script`` to it: each step ``(message, reads)`` sends ``message`` as one line (a dict as
    JSON, a str as it is; None sends nothing) and then reads ``reads`` lines back, each within
    ``timeout`` seconds, before the next step, so every run records the lines in the same
    order. Then the client's end is closed and the tap ends with the server. Returns the
    lines read; a line that does not come in time ends the script early (the recording says
    how far it got)."""
    from mcp_lesson.client.stdio import StdioServer

    server = StdioServer(tap_command(recording, *command), timeout=timeout).start()
    read = []
    try:
        for message, reads in script:
            if message is not None:
                server.send(message)
            for _ in range(reads):
                line = server.read_line(timeout)
                if line is None:
                    return read
                read.append(line)
    finally:
        server.stop(timeout=timeout)
    return read

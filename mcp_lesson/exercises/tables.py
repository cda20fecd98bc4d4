"""The tables that check a learner's function: each case run, and judged.

A :class:`Table` holds a function's cases and how each is judged: by its verdict
(:func:`verdicts`), by what a builder returns or refuses (:func:`builds`), or by a
comparison of the answer with the expected one (:func:`judged`, with one of the
``same_*`` comparisons). :meth:`Table.rows` runs a function on every case and gives
one :class:`Row` each; a :class:`CheckReport` puts them in words. Whatever the
function does is reported, never re-raised (:mod:`mcp_lesson.exercises.calling`).
The registry's rows hold these tables; :mod:`mcp_lesson.exercises.selfcheck` runs them.
"""

import copy
import json
from typing import NamedTuple

from mcp_lesson.exercises.calling import (
    CALL_LIMIT,
    call_safely,
    exception_text,
    is_verdict,
    not_json_at,
    python_text,
    same_json,
    same_message,
    same_verdict,
    shown,
    shown_apart,
)
from mcp_lesson.exercises.cases import ANY_WORDS
from mcp_lesson.exercises.http_cases import REFUSES
from mcp_lesson.exercises.refusals import names_what_was_wrong


class Row(NamedTuple):
    """One case of a check: its name, input, what was expected and what came back."""

    name: str
    shown_input: str
    expected: str
    got: str
    ok: bool
    reason: str
    raised: str = ""  # the exception type's name, when the function raised
    raised_in: str = ""  # the function the exception came from, when not the checked one
    called: str = ""  # the call's arguments as Python writes them, in parentheses


#: How a row whose call gave no answer is said, by the name :attr:`Row.raised` holds.
_NO_ANSWER = {
    "DidNotFinish": f"did not finish in {CALL_LIMIT:g} s: a loop that never ends?",
    "Interrupted": "was stopped: you interrupted it",
}


class CheckReport(NamedTuple):
    """All the rows of one check; ``not_implemented`` when every case raised
    ``NotImplementedError`` (the learner's stub, untouched)."""

    target: str
    rows: list[Row]
    not_implemented: bool
    printed: int = 0  # characters the function printed while checked (not shown)

    @property
    def passed(self):
        return sum(row.ok for row in self.rows)

    @property
    def total(self):
        return len(self.rows)

    @property
    def not_run(self):
        """The rows whose call was not made (the learner stopped the check, or the function
        ran out of time too often)."""
        return [row for row in self.rows if row.raised == "NotRun"]

    @property
    def failures(self):
        """The failing rows: the function's own first, then those raised inside a helper."""
        failing = [row for row in self.rows if not row.ok and row.raised != "NotRun"]
        return [row for row in failing if not row.raised_in] + [
            row for row in failing if row.raised_in
        ]

    @property
    def all_pass(self):
        return self.passed == self.total

    def summary(self):
        line = f"{self.target}: {self.passed}/{self.total} cases pass"
        if self.not_implemented:
            line += " (not implemented yet: it raises NotImplementedError)"
        return line

    def text(self, show=3):
        """The summary, then up to ``show`` failures in plain words."""
        lines = [self.summary()]
        if self.not_implemented:
            lines.append(f"  Write the body of {self.target}, then run this cell again.")
            return "\n".join(lines)
        for row in self.failures[:show]:
            if row.raised in _NO_ANSWER:  # one line: the call, and that it gave no answer
                said = row.got.partition(f"{row.raised}: ")[2] or _NO_ANSWER[row.raised]
                lines.append(f"  x {row.name}: {self.target}{row.called or '(...)'} {said}")
                continue
            lines.append(f"  x {row.name}: {row.shown_input}")
            where = f", inside {row.raised_in}" if row.raised_in else ""
            lines.append(f"      expected {row.expected}, got {row.got}{where}  ({row.reason})")
        hidden = len(self.failures) - show
        if hidden > 0:
            lines.append(
                f"  ... and {hidden} more failing case{'s' * (hidden != 1)} "
                f"(check(..., show={len(self.failures)}) shows them all)"
            )
        if self.not_run:
            why = self.not_run[0].got.partition("NotRun: ")[2] or "the check stopped"
            count = len(self.not_run)
            lines.append(f"  ({count} more case{'s' * (count != 1)} did not run: {why})")
        if self.printed:
            lines.append(
                f"  ({self.target} printed {self.printed:,} characters while it was "
                "checked; they are not shown)"
            )
        return "\n".join(lines)


def _library_folders():
    import sysconfig
    from pathlib import Path

    paths = sysconfig.get_paths()
    folders = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(folders | {str(Path(__file__).resolve().parents[1])})


_LIBRARIES = _library_folders()


def _raised_in(exc, fn):
    """The name of the learner's function that raised ``exc``, when it is not ``fn``
    itself (frames in Python's own library and in this package do not count)."""
    frame, last = exc.__traceback__, None
    while frame is not None:
        if not frame.tb_frame.f_code.co_filename.startswith(_LIBRARIES):
            last = frame
        frame = frame.tb_next
    if last is None:
        return ""
    name = last.tb_frame.f_code.co_name
    own = getattr(getattr(fn, "__code__", None), "co_name", getattr(fn, "__name__", ""))
    return "" if name == own or name.startswith("<") else name


def _verdict_rows(fn, cases, as_text, printed):
    rows = []
    for case in cases:
        given = case.text if as_text else case.message
        got, exc = call_safely(fn, (given,), {}, printed)
        called = f"({python_text(given, 200)})"  # whole, as a learner would write the call
        if exc is not None:
            rows.append(
                Row(
                    case.name,
                    shown(given),
                    repr(case.expected),
                    f"an exception, {exception_text(exc)}",
                    False,
                    case.reason,
                    type(exc).__name__,
                    _raised_in(exc, fn),
                    called,
                )
            )
            continue
        ok, reason = same_verdict(got, case.expected), case.reason
        if not ok and type(got) is list and same_verdict(tuple(got), case.expected):
            reason = "right values, but return a tuple, not a list"
        elif not ok and not is_verdict(got) and _looks_equal(got, case.expected):
            reason = "it compares equal, but a verdict is a plain tuple of a str and an int or None"
        rows.append(
            Row(
                case.name,
                shown(given),
                repr(case.expected),
                python_text(got),
                ok,
                reason,
                called=called,
            )
        )
    return rows


def _looks_equal(got, expected):
    try:
        return bool(got == expected)
    except Exception:
        return False


def _build_rows(fn, builds, printed):
    rows = []
    for build in builds:
        call = ", ".join(
            [
                *(python_text(a, 40) for a in build.args),
                *(f"{k}={python_text(v, 40)}" for k, v in build.kwargs.items()),
            ]
        )
        called = ", ".join(  # whole, as a learner would write the call
            [
                *(python_text(a, 200) for a in build.args),
                *(f"{k}={python_text(v, 200)}" for k, v in build.kwargs.items()),
            ]
        )
        got, exc = call_safely(fn, build.args, build.kwargs, printed)
        if build.expected is TypeError:
            want = "TypeError"
            ok = isinstance(exc, TypeError)
            if (
                ok
                and build.offender is not ANY_WORDS
                and not names_what_was_wrong(exc, build.offender)
            ):
                ok, want = (
                    False,
                    f"a TypeError naming {type(build.offender).__name__} or {python_text(build.offender, 40)}",
                )
        else:
            want = (
                repr(build.expected) if isinstance(build.expected, bool) else shown(build.expected)
            )
            ok = exc is None and same_message(got, build.expected)
        reason = build.reason
        if exc is not None:
            outcome = exception_text(exc)
        else:
            outcome = repr(got) if isinstance(got, bool) else shown(got)
            if not ok and build.expected is not TypeError and not isinstance(got, bool):
                outcome, want = shown_apart(got, build.expected)
                leaked = not_json_at(got)
                if leaked:  # a sentinel or other Python object left in the message
                    reason = f"{leaked[0]} is {leaked[1]}; {build.reason}"
                elif _json_text(got) is not None and _json_text(got) == _json_text(build.expected):
                    reason = f"the right members, in another order; the case: {build.reason}"
        raised = type(exc).__name__ if exc is not None else ""
        raised_in = _raised_in(exc, fn) if exc is not None and not ok else ""
        rows.append(
            Row(
                build.name, f"({call})", want, outcome, ok, reason, raised, raised_in, f"({called})"
            )
        )
    return rows


# --- lesson 09: the HTTP transport's four functions ------------------------------------


def _json_text(value):
    """``value`` as JSON text with sorted keys (so key order does not count, types do), or None."""
    try:
        return json.dumps(value, sort_keys=True)
    except Exception:  # not JSON, or keys that cannot be sorted
        return None


def _media_types(value):
    return {part.split(";")[0].strip().lower() for part in value.split(",")}


def same_post(got, want):
    """``(ok, hint)``: is ``got`` the HTTP request ``want``? Header names compare in any
    case, ``Accept`` needs both media types, the body is compared as the JSON it holds."""
    if type(got) is not dict or set(got) != {"method", "headers", "body"}:
        return False, "return a dict with the keys method, headers and body"
    if got["method"] != "POST":
        return False, "every message goes in a POST"
    headers = got["headers"]
    if type(headers) is not dict or not all(
        type(k) is str and type(v) is str for k, v in headers.items()
    ):
        return False, "headers: a dict of str names to str values"
    sent = {name.lower(): value for name, value in headers.items()}
    wanted = {name.lower(): (name, value) for name, value in want["headers"].items()}
    missing = [wanted[name][0] for name in wanted if name not in sent]
    if missing:
        return False, f"no {missing[0]} header"
    extra = [name for name in headers if name.lower() not in wanted]
    if extra:
        return False, f"the {extra[0]} header does not belong in this request"
    for name, (shown_name, value) in wanted.items():
        if name == "accept":
            if not {"application/json", "text/event-stream"} <= _media_types(sent[name]):
                return False, "Accept must list application/json and text/event-stream"
        elif sent[name] != value:
            return False, f"{shown_name} should be {value!r}, not {python_text(sent[name], 50)}"
    body = got["body"]
    try:
        parsed = json.loads(body) if type(body) in (str, bytes) else None
    except ValueError:
        parsed = None
    if parsed is None or _json_text(parsed) != _json_text(json.loads(want["body"])):
        return False, "the body must be the message as JSON text"
    return True, ""


def same_refusal(got, want):
    """``(ok, hint)``: None for None, else (status, error response): status, id, code and
    (when the table gives it) data must be right; the message may be any text."""
    if want is None:
        return got is None, "" if got is None else "the headers agree: return None"
    if got is None:
        return False, "the headers and the body disagree: return (400, an error response)"
    if type(got) is not tuple or len(got) != 2:
        return False, "return a tuple (HTTP status, error response)"
    status, body = got
    if type(status) is not int or status != want[0]:
        return False, f"the HTTP status should be {want[0]}"
    error = body.get("error") if type(body) is dict else None
    if (
        type(error) is not dict
        or body.get("jsonrpc") != "2.0"
        or set(body) != {"jsonrpc", "id", "error"}
        or type(error.get("message")) is not str
    ):
        return False, "the second item: an error response, as error_response builds it"
    if _json_text(body["id"]) != _json_text(want[1]["id"]):
        return False, f"the error's id should be {python_text(want[1]['id'], 40)}"
    if type(error.get("code")) is not int or error["code"] != want[1]["error"]["code"]:
        return False, f"the code should be {want[1]['error']['code']}"
    if "data" in want[1]["error"] and _json_text(error.get("data")) != _json_text(
        want[1]["error"]["data"]
    ):
        return False, "data should say which versions are supported and which was requested"
    return True, ""


def same_events(got, want):
    """``(ok, hint)``: a list of (data, verdict) pairs, exactly."""
    if type(got) is not list:
        return False, "return a list of (data, verdict) pairs"
    if len(got) != len(want):
        return False, f"{len(want)} message{'s' * (len(want) != 1)} in this stream, not {len(got)}"
    for (data, verdict), pair in zip(want, got):
        if type(pair) is not tuple or len(pair) != 2:
            return False, "each item: a tuple (data, verdict)"
        if type(pair[0]) is not str or pair[0] != data:
            return False, f"the data should be {python_text(data, 50)}"
        if not same_verdict(pair[1], verdict):
            return False, f"the verdict of {python_text(data, 30)} should be {verdict!r}"
    return True, ""


def same_words(got, want):
    ok = type(got) is str and got == want
    return ok, "" if ok else f"the words should be exactly {want!r}"


#: Why a case fails whose function changed what it was given.
CHANGED = "a judge leaves what it is given as it was"


def _written(value):
    try:
        return repr(value)
    except Exception:
        return None


def _watched_call(fn, args, kwargs, printed):
    """``(value, exception, changed)``: :func:`call_safely` on copies of the arguments that are
    looked at again afterwards; ``changed`` is True when ``fn`` changed one of them."""
    try:
        given = copy.deepcopy((tuple(args), dict(kwargs)))
    except Exception:
        return (*call_safely(fn, args, kwargs, printed), False)
    before = _written(given)
    got, exc = call_safely(lambda: fn(*given[0], **given[1]), (), {}, printed)
    return got, exc, before is not None and _written(given) != before


def _judged_rows(fn, builds, printed, judge):
    """Rows for a table whose answers :func:`judge` compares (or that must be refused); a
    case fails, whatever the answer, when the function changed its argument."""
    rows = []
    for build in builds:
        call = ", ".join(python_text(arg, 40) for arg in build.args)
        called = ", ".join(python_text(arg, 200) for arg in build.args)  # whole
        got, exc, changed = _watched_call(fn, build.args, build.kwargs, printed)
        refuse = build.expected is REFUSES
        want = "a ValueError (or TypeError)" if refuse else python_text(build.expected, 90)
        reason = build.reason
        if exc is not None:
            ok, outcome = refuse and isinstance(exc, REFUSES), exception_text(exc)
        elif refuse:
            ok, outcome = False, python_text(got)
        else:
            ok, hint = judge(got, build.expected)
            outcome = python_text(got)
            if not ok:
                outcome, want = (
                    shown_apart(got, build.expected)
                    if type(got) is type(build.expected)
                    else (outcome, want)
                )
                reason = f"{hint}; the case: {reason}" if hint else reason
        if changed and ok:
            ok, outcome, reason = (
                False,
                f"{outcome}, and it changed its argument",
                f"{CHANGED}; the case: {reason}",
            )
        raised = type(exc).__name__ if exc is not None else ""
        raised_in = _raised_in(exc, fn) if exc is not None and not ok else ""
        rows.append(
            Row(
                build.name, f"({call})", want, outcome, ok, reason, raised, raised_in, f"({called})"
            )
        )
    return rows


# --- lesson 10: the audit of a recorded conversation -----------------------------------


def _problem_text(problem):
    return python_text(problem, 40)


def same_problems(got, want):
    """``(ok, hint)``: exactly the list of ``(place, problem)`` tuples ``want``, in order."""
    if type(got) is not list:
        return False, "return a list of (place, problem) pairs"
    if not all(type(item) is tuple and len(item) == 2 for item in got):
        wrong = next(item for item in got if not (type(item) is tuple and len(item) == 2))
        return False, f"each problem is a tuple (place, problem), not {python_text(wrong, 40)}"
    if not all(type(place) is int and type(name) is str for place, name in got):
        return False, "a place is an int (counted from 1) and a problem a str"
    if got == want:
        return True, ""
    missing = [problem for problem in want if problem not in got]
    extra = [problem for problem in got if problem not in want]
    if missing:
        return False, f"it misses {_problem_text(missing[0])}"
    if extra:
        return False, f"{_problem_text(extra[0])} is no problem here"
    if sorted(got) == want:
        return False, "the right problems; sort them by place"
    return False, "each problem once"


# --- lesson 11: your own server ----------------------------------------------------------


def _texts_blank(result):
    """A failed tool's result with its words blanked: any words will do, in one or more text pieces."""
    content = result.get("content")
    if not (
        isinstance(content, list)
        and content
        and all(
            isinstance(piece, dict)
            and piece.get("type") == "text"
            and isinstance(piece.get("text"), str)
            for piece in content
        )
    ):
        return result
    return {**result, "content": [{"type": "text", "text": ""}]}


def same_tool_result(got, want):
    """``(ok, hint)`` for a tool's result: exactly ``want`` as JSON; for a failed call (isError)
    any words will do, and the rest is exact."""
    if want is None:
        return (got is None, "" if got is None else "None: there is no such tool")
    if not isinstance(got, dict):
        return False, "return a tool result, a dict with content and isError"
    if want.get("isError") is True:
        if got.get("isError") is not True:
            return False, "the tool cannot do this call: its result says isError: True"
        if _texts_blank(got) is got:
            return False, "say why in text content"
        return (same_json(_texts_blank(got), _texts_blank(want)), "")
    if got.get("isError") is True:
        return False, "this call works: isError is False"
    return (same_json(got, want), "")


def same_reply(got, want):
    """``(ok, hint)`` for one message a server sends: exactly ``want`` as JSON, but an error's
    message (the server's own words, a str) and a failed tool's words, as :func:`same_tool_result`."""
    if not isinstance(got, dict):
        return False, "each reply is a message, a dict"
    if "error" in want:
        error = got.get("error")
        if not isinstance(error, dict) or "result" in got:
            return False, "an error response is owed here, not a result"
        if not same_json(error.get("code"), want["error"]["code"]):
            return False, f"yours has code {python_text(error.get('code'), 20)}"
        if not isinstance(error.get("message"), str):
            return False, "an error's message is a str"
        if not same_json(
            {**got, "error": {**error, "message": ""}},
            {**want, "error": {**want["error"], "message": ""}},
        ):
            return False, "the code is right; look at the id and the data"
        return True, ""
    result, wanted = got.get("result"), want.get("result")
    if isinstance(wanted, dict) and wanted.get("isError") is True and isinstance(result, dict):
        ok, hint = same_tool_result(result, wanted)
        return (ok and same_json({**got, "result": None}, {**want, "result": None}), hint)
    return (same_json(got, want), "")


def same_replies(got, want):
    """``(ok, hint)`` for ``(replies, session)``."""
    if not (type(got) is tuple and len(got) == 2):
        return False, "return a pair: (the replies, the session after)"
    replies, session = got
    if type(replies) is not list:
        return False, "the replies are a list (empty when nothing is owed)"
    if not same_json(session, want[1]):
        return False, f"the session after is {python_text(want[1], 30)}"
    if len(replies) != len(want[0]):
        return False, f"{len(want[0])} repl{'y' if len(want[0]) == 1 else 'ies'}"
    for place, (mine, theirs) in enumerate(zip(replies, want[0]), 1):
        ok, hint = same_reply(mine, theirs)
        if not ok:
            return False, f"reply {place}: {hint}" if hint else f"reply {place}"
    return True, ""


class Table(NamedTuple):
    """A table a function is checked on: its cases (rows of :mod:`mcp_lesson.exercises.cases`), how
    each is judged, and the call each case makes. A row of
    :data:`mcp_lesson.exercises.registry.BUILT` holds it."""

    cases: list
    judge: object  # (fn, cases, printed) -> [Row]
    call: object  # case -> (args, kwargs)

    def rows(self, fn, printed):
        return self.judge(fn, self.cases, printed)

    def calls(self):
        """The (args, kwargs) of each case, in the table's order."""
        return [self.call(case) for case in self.cases]


def _build_call(build):
    return build.args, build.kwargs


def verdicts(cases, as_text=False):
    """A table of (kind, code) verdicts: on each case's message, or on its raw text."""
    return Table(
        cases,
        lambda fn, cases, printed: _verdict_rows(fn, cases, as_text, printed),
        lambda case: ((case.text if as_text else case.message,), {}),
    )


def builds(cases):
    """A table of calls and the message each builds (or the TypeError it raises)."""
    return Table(cases, _build_rows, _build_call)


def judged(cases, same):
    """A table of calls whose answers ``same(got, want)`` compares (or that must be refused)."""
    return Table(
        cases, lambda fn, cases, printed: _judged_rows(fn, cases, printed, same), _build_call
    )


def shared(how, cases):
    """The table of a row of the shared case table (a case module's ``CHECKS``): ``how`` says
    how its cases are judged, "verdicts" (of messages), "verdicts of texts", "builds", or the
    name of one of this module's ``same_*`` comparisons. A ``ValueError`` for any other word."""
    if how in ("verdicts", "verdicts of texts"):
        return verdicts(cases, as_text=how == "verdicts of texts")
    if how == "builds":
        return builds(cases)
    same = globals().get(how) if how.startswith("same_") else None
    if not callable(same):
        raise ValueError(
            f"no table judges its cases by {how!r}: say verdicts, verdicts of texts, builds "
            "or a same_* comparison of mcp_lesson/exercises/tables.py"
        )
    return judged(cases, same)

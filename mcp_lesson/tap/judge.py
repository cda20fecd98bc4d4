"""Judging a line as it passes: the course's verdict (:class:`CourseJudge`), or the
``classify_json`` of a user's own package (``--judge my_mcp``, :class:`UserJudge`).
"""

import json
import os
import sys
import threading
from json.encoder import encode_basestring_ascii as _quote

from mcp_lesson.exercises.calling import one_line
from mcp_lesson.protocol.strict_json import scan as _scan
from mcp_lesson.rules.classification import classify, classify_json
from mcp_lesson.tap._settings import PROG


def _verdict_field(verdict):
    kind, code = verdict
    return f'"kind":{json.dumps(kind)},"code":{json.dumps(code)},'


class CourseJudge:
    """The course's verdict on a line: :func:`mcp_lesson.classify_json`'s.

    A line that is exactly one JSON value, with nothing before or after it,
    is read by the same strict parser's scanner and handed to
    :func:`mcp_lesson.classify` directly; any other line (whitespace around
    the value, a parse error, nesting too deep, a long integer) goes to
    ``classify_json`` itself. So every verdict is exactly that function's
    (tests/tap/test_judge.py holds the two to it on the course's text cases).
    """

    name = "mcp_lesson"

    def __init__(self):
        self._fields = {}

    def fields(self, text, raw):
        """The record's ``"kind":...,"code":...,`` for a line (``text``, or ``raw`` bytes that
        are not UTF-8)."""
        if text is None:
            verdict = classify_json(raw)
        else:
            try:
                value, end = _scan(text, 0)
            except Exception:  # not JSON, too deep, a long integer...: classify_json decides
                verdict = classify_json(text)
            else:
                verdict = classify(value) if end == len(text) else classify_json(text)
        fields = self._fields.get(verdict)
        if fields is None:
            fields = self._fields[verdict] = _verdict_field(verdict)
        return fields


class UserJudge:
    """The verdict of a user's own ``classify_json`` (``--judge``), whatever it does.

    It gets the line as text (as bytes when they are not UTF-8). An exception,
    or an answer that is not a ``(kind, code)`` pair with a string or null
    kind and an integer or null code, is recorded as ``judge_error`` with a
    null verdict; the traffic passes on regardless.
    """

    def __init__(self, name, function):
        self.name = name
        self._function = function

    def fields(self, text, raw):
        try:
            verdict = self._function(raw if text is None else text)
            kind, code = verdict
            if not (kind is None or isinstance(kind, str)) or not (
                code is None or (isinstance(code, int) and not isinstance(code, bool))
            ):
                raise TypeError(f"returned {_short(repr(verdict), 80)}, not a (kind, code) pair")
        except (Exception, SystemExit) as exc:
            problem = f"{type(exc).__name__}: {_short(str(exc), 200)}"
            return f'"kind":null,"code":null,"judge_error":{_quote(problem)},'
        return _verdict_field((kind, code))


def _short(text, limit):
    """``text`` on one line, its control and direction characters escaped, at most ``limit`` long."""
    return one_line(text, max(limit - 3, 1))


def load_judge(name, complain=None):
    """The judge named by ``--judge NAME``: the ``classify_json`` of the package in the folder
    ``NAME``, of the ``my_mcp`` package inside the folder ``NAME``, or of the module ``NAME``.

    When it cannot be loaded, has no ``classify_json``, or fails on a plain
    request, ``complain`` (by default: a line on stderr) is told why, and the
    course's judge is returned instead.
    """
    complain = complain or (lambda words: print(f"{PROG}: {words}", file=sys.stderr, flush=True))
    fallback = "; judging with the course's classify_json instead"
    try:
        function, where = _find_classify_json(name)
    except Exception as exc:  # an import that fails, a SyntaxError, anything
        complain(f"--judge {name}: {exc}{fallback}")
        return CourseJudge()
    probe = {}

    def try_it():
        try:
            probe["verdict"] = function('{"jsonrpc": "2.0", "id": 1, "method": "ping"}')
        except BaseException as exc:
            probe["error"] = exc

    tried = threading.Thread(target=try_it, daemon=True)
    tried.start()
    tried.join(2.0)
    if tried.is_alive():
        complain(
            f"--judge {name}: its classify_json has not answered a ping request in 2 s{fallback}"
        )
        return CourseJudge()
    if "error" in probe:
        failed = probe["error"]
        complain(
            f"--judge {name}: its classify_json raised {type(failed).__name__} on a ping "
            f"request ({_short(str(failed), 120)}){fallback}"
        )
        return CourseJudge()
    return UserJudge(where, function)


def _find_classify_json(name):
    import importlib
    import importlib.util

    folder = os.path.abspath(name)
    for package in (folder, os.path.join(folder, "my_mcp")):
        init = os.path.join(package, "__init__.py")
        if os.path.isfile(init):
            # Imported under a name of its own, as a package (its modules import each other
            # relatively), and fresh; an error on the way propagates with its own words.
            unique = f"_tap_judge_{abs(hash(init))}"
            spec = importlib.util.spec_from_file_location(
                unique, init, submodule_search_locations=[package]
            )
            module = importlib.util.module_from_spec(spec)
            sys.modules[unique] = module
            try:
                spec.loader.exec_module(module)
            except BaseException as exc:
                sys.modules.pop(unique, None)
                where = ""
                if isinstance(exc, SyntaxError):
                    where = f" ({os.path.basename(exc.filename or '')}, line {exc.lineno})"
                raise ImportError(
                    f"importing {package} failed: {type(exc).__name__}: "
                    f"{_short(str(exc), 200)}{where}"
                ) from None
            shown = os.path.basename(package)
            break
    else:
        if os.path.isdir(folder):
            raise ImportError(
                f"{folder} is a folder without a package (no __init__.py, "
                "and no my_mcp/__init__.py in it)"
            )
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        module = importlib.import_module(name)
        package, shown = getattr(module, "__file__", name), name
    function = getattr(module, "classify_json", None)
    if not callable(function):
        problems = getattr(module, "PROBLEMS", None)
        said = f" (its problems: {problems})" if problems else ""
        raise ImportError(f"{package} has no classify_json{said}")
    return function, f"{shown} ({package})"

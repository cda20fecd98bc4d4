"""What the lessons build: one row per function, read by every part of the course.

Each function a learner writes into their package has one :class:`Built` row:
the lesson that builds it, the file of the learner's package it goes into, the
course's own version (its reference), the table that checks it (its cases and
how each is judged, :mod:`mcp_lesson.exercises.selfcheck`) and the inputs it is compared
with the course's on (:mod:`mcp_lesson.exercises.agreement`). The
self-checks (:mod:`mcp_lesson.exercises.selfcheck`), the lessons' helpers
(:mod:`mcp_lesson.course`), carry-forward and graduation
(:mod:`mcp_lesson.exercises.learner_package`, ``tests/implementation.py``) all read this
table; none keeps a list of its own.

It imports the tables it holds (mcp_lesson/exercises/cases.py, judged as
tables.py says, compared on the inputs of inputs.py) and the lessons' table
(mcp_lesson/exercises/lessons.py); :func:`reference` imports the course's version only
when asked. selfcheck.py and agreement.py, which run those tables, import this module.
"""

import importlib
import importlib.util
from typing import NamedTuple, Optional

from mcp_lesson.exercises import inputs as _agree
from mcp_lesson.exercises import cases as _cases
from mcp_lesson.exercises import http_cases as _http
from mcp_lesson.exercises import server_cases as _server
from mcp_lesson.exercises import traffic_cases as _traffic
from mcp_lesson.exercises import lessons as _lessons
from mcp_lesson.exercises import tables as _check


class Built(NamedTuple):
    """One function a lesson builds."""

    name: str
    #: The lesson that builds it ("03" for notebooks/03_classifying.ipynb).
    lesson: str
    #: The module of the learner's package it is exported into (my_mcp/<module>.py).
    module: str
    #: The course's own version, as "module.function" inside mcp_lesson (None
    #: when the course has none, only a table of answers).
    reference: Optional[str]
    #: The table that checks it (``check(fn)``): its cases and how each is judged
    #: (:class:`mcp_lesson.exercises.tables.Table`); None when it is checked by agreeing
    #: with its reference instead.
    table: Optional[_check.Table]
    #: What it is compared with its reference on (:func:`mcp_lesson.course.agree`) when
    #: it has no table (:class:`mcp_lesson.exercises.inputs.Inputs`): the case table's messages
    #: or texts, a few plain values for a lesson's small helpers (``SAMPLE_VALUES``), or
    #: lesson 08's (message, revision) pairs; None for a row with a table, which is
    #: compared on the calls of its table's cases.
    agree_on: Optional[_agree.Inputs] = None
    #: True when graduation runs the course's tests on it (the package's public
    #: functions); False for a lesson's helpers.
    graduates: bool = True

    def inputs(self):
        """The (args, kwargs) pairs it is compared with its reference on."""
        return self.agree_on.pairs() if self.agree_on is not None else self.table.calls()


#: The module of the learner's package each lesson exports into, by lesson, in
#: the order the lessons come (a module may import from those before it): the
#: lessons' table, mcp_lesson/exercises/lessons.py.
MODULES = _lessons.MODULES


def module_of(lesson):
    """The module (file name without .py) lesson ``lesson`` exports into."""
    return MODULES.get(lesson, f"lesson_{lesson}")


#: Every function a lesson builds, in the order the lessons build them.
BUILT = (
    Built("is_integer", "02", "messages", "rules.messages.is_integer", None, _agree.SAMPLE_VALUES, False),
    Built("is_valid_id", "02", "messages", "rules.messages.is_valid_id", None, _agree.SAMPLE_VALUES, False),
    Built("create_request", "02", "messages", "rules.messages.create_request",
          _check.builds(_cases.REQUEST_BUILDS)),
    Built("classify", "03", "classification", "rules.classification.classify",
          _check.verdicts(_cases.CASES)),
    Built("classify_json", "03", "classification", "rules.classification.classify_json",
          _check.verdicts(_cases.TEXT_CASES + _cases.NOT_TEXT_CASES, as_text=True)),
    Built("error_response", "04", "errors", "rules.messages.error_response",
          _check.builds(_cases.ERROR_BUILDS)),
    Built("reply_for", "04", "errors", "rules.classification.reply_for", None, _agree.MESSAGES),
    Built("reply_for_json", "04", "errors", "rules.classification.reply_for_json", None, _agree.TEXTS),
    Built("is_reply_to", "06", "conversation", None, _check.builds(_cases.REPLY_MATCHES)),
    # Lesson 08: the error response's optional id, by revision (the course's version is the
    # master's export, mcp_lesson/core/revisions.py; mcp_lesson.classify knows more revisions).
    Built("classify_at", "08", "revisions", "core.revisions.classify_at", None, _agree.REVISION_MESSAGES),
    # Lesson 09, the HTTP transport: the course's versions are the master's export
    # (mcp_lesson/core/transport.py). Graduation: tests/exercises/test_each_case.py, as for every function a lesson builds.
    Built("http_request_for", "09", "transport", "core.transport.http_request_for",
          _check.judged(_http.HTTP_REQUESTS, _check.same_post)),
    Built("check_headers", "09", "transport", "core.transport.check_headers",
          _check.judged(_http.HEADER_CHECKS, _check.same_refusal)),
    Built("read_sse", "09", "transport", "core.transport.read_sse",
          _check.judged(_http.SSE_STREAMS, _check.same_events)),
    Built("http_verdict", "09", "transport", "core.transport.http_verdict",
          _check.judged(_http.HTTP_ANSWERS, _check.same_words)),
    # Lesson 10, live traffic: the audit of a recorded conversation (mcp_lesson/core/traffic.py
    # is the master's export), which the tap's --report runs on each session
    # (mcp_lesson.tap.audit puts it in words, under the revision agreed).
    Built("audit", "10", "traffic", "core.traffic.audit",
          _check.judged(_traffic.CONVERSATIONS, _check.same_problems)),
    # Lesson 11, your own server: its tools, its table of methods, and one message in with its
    # replies out (mcp_lesson/core/server.py is the master's export; python -m
    # mcp_lesson.server.own runs it).
    Built("call_tool", "11", "server", "core.server.call_tool",
          _check.judged(_server.TOOL_CALLS, _check.same_tool_result)),
    Built("answer_request", "11", "server", "core.server.answer_request",
          _check.judged(_server.SERVER_REQUESTS, _check.same_reply)),
    Built("handle_message", "11", "server", "core.server.handle_message",
          _check.judged(_server.SERVER_MESSAGES, _check.same_replies)),
)

#: The rows by name.
BY_NAME = {built.name: built for built in BUILT}

#: The functions graduation runs the course's tests on, by name, with their lesson.
GRADUATED = {built.name: built.lesson for built in BUILT if built.graduates}


#: The names of the functions that :func:`mcp_lesson.exercises.selfcheck.check` checks on a table.
CHECKED = tuple(built.name for built in BUILT if built.table)


def may_borrow(lesson):
    """The course's functions that the cells of lesson ``lesson`` may call, by name:
    those the lessons before it built, in the form those lessons' masters export
    (:func:`borrowed`). Never a function the lesson itself builds, and never one of
    the course's richer functions (``explain``, ``classify`` with a ``revision``,
    ``rule_of``...), which give the answers a later lesson grades under another
    name. The judge serves only these to graded work (tools/judge)."""
    return tuple(built.name for built in BUILT if built.lesson < str(lesson) and _core(built.name))


def _core(name):
    """Where the master's export of ``name`` lives ("core.<module>"), or None."""
    built = BY_NAME[name]
    if importlib.util.find_spec(f"mcp_lesson.core.{built.module}") is None:
        return None
    return f"core.{built.module}"


def borrowed(name):
    """The master's export of ``name`` (mcp_lesson/core/), the version a later lesson
    may borrow (:func:`may_borrow`); a ``LookupError`` when there is none."""
    where = _core(name)
    function = getattr(importlib.import_module(f"mcp_lesson.{where}"), name, None) if where else None
    if not callable(function):
        raise LookupError(f"no lesson exports {name}")
    return function


def reference(name):
    """The course's own version of the function ``name``: None when the course
    has none, a ``KeyError`` for a name no lesson builds."""
    if BY_NAME[name].reference is None:
        return None
    module, _, function = BY_NAME[name].reference.rpartition(".")
    return getattr(importlib.import_module(f"mcp_lesson.{module}"), function)


def lesson_of(name):
    """The lesson that builds ``name``, or None when no lesson does."""
    built = BY_NAME.get(name)
    return built.lesson if built else None

"""What the lessons build: one row per function, read by every part of the course.

Each function a learner writes into their package has one :class:`Built` row:
the lesson that builds it, the file of the learner's package it goes into, the
course's own version (its reference), and the table that checks it. The
self-checks (:mod:`mcp_lesson.selfcheck`), the lessons' helpers
(:mod:`mcp_lesson.course`), carry-forward and graduation
(:mod:`mcp_lesson.learner_package`, ``tests/implementation.py``) all read this
table; none keeps a list of its own.

This module imports nothing of the course at import time but the lessons' table
(mcp_lesson/lessons.py, which imports nothing), so any module may import it;
:func:`reference` imports the course's version only when asked.
"""

import importlib
import importlib.util
from typing import NamedTuple, Optional

from . import lessons as _lessons


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
    #: The table of :mod:`mcp_lesson.selfcheck` that checks it (``check(fn)``), or
    #: None when it is checked by agreeing with its reference instead.
    table: Optional[str]
    #: What it is compared with its reference on (:func:`mcp_lesson.course.agree`):
    #: "messages", "texts", "request builds", "error builds", "samples" (a few
    #: plain values, for a lesson's small helpers), lesson 08's (message, revision)
    #: pairs ("revision messages"), the calls of one of lesson 09's tables ("http
    #: requests", "header checks", "sse streams", "http answers"), lesson 10's
    #: recorded conversations ("conversations"), or one of lesson 11's tables ("tool
    #: calls", "server requests", "server messages").
    agree_on: str
    #: True when graduation runs the course's tests on it (the package's public
    #: functions); False for a lesson's helpers.
    graduates: bool = True


#: The module of the learner's package each lesson exports into, by lesson, in
#: the order the lessons come (a module may import from those before it): the
#: lessons' table, mcp_lesson/lessons.py.
MODULES = _lessons.MODULES


def module_of(lesson):
    """The module (file name without .py) lesson ``lesson`` exports into."""
    return MODULES.get(lesson, f"lesson_{lesson}")


#: Every function a lesson builds, in the order the lessons build them.
BUILT = (
    Built("is_integer", "02", "messages", "messages.is_integer", None, "samples", False),
    Built("is_valid_id", "02", "messages", "messages.is_valid_id", None, "samples", False),
    Built("create_request", "02", "messages", "messages.create_request", "create_request",
          "request builds"),
    Built("classify", "03", "classification", "classification.classify", "classify", "messages"),
    Built("classify_json", "03", "classification", "classification.classify_json", "classify_json",
          "texts"),
    Built("error_response", "04", "errors", "messages.error_response", "error_response",
          "error builds"),
    Built("reply_for", "04", "errors", "classification.reply_for", None, "messages"),
    Built("reply_for_json", "04", "errors", "classification.reply_for_json", None, "texts"),
    Built("is_reply_to", "06", "conversation", None, "is_reply_to", "messages"),
    # Lesson 08: the error response's optional id, by revision (the course's version is the
    # master's export, mcp_lesson/core/revisions.py; mcp_lesson.classify knows more revisions).
    Built("classify_at", "08", "revisions", "core.revisions.classify_at", None, "revision messages"),
    # Lesson 09, the HTTP transport: the course's versions are the master's export
    # (mcp_lesson/core/transport.py). Graduation: tests/test_later_lessons.py, as for 08 to 11.
    Built("http_request_for", "09", "transport", "core.transport.http_request_for",
          "http_request_for", "http requests"),
    Built("check_headers", "09", "transport", "core.transport.check_headers", "check_headers",
          "header checks"),
    Built("read_sse", "09", "transport", "core.transport.read_sse", "read_sse", "sse streams"),
    Built("http_verdict", "09", "transport", "core.transport.http_verdict", "http_verdict",
          "http answers"),
    # Lesson 10, live traffic: the audit of a recorded conversation (mcp_lesson/core/traffic.py
    # is the master's export), which the tap's --report runs on each session
    # (mcp_lesson.tap.audit puts it in words, under the revision agreed).
    Built("audit", "10", "traffic", "core.traffic.audit", "audit", "conversations"),
    # Lesson 11, your own server: its tools, its table of methods, and one message in with its
    # replies out (mcp_lesson/core/server.py is the master's export; python -m
    # mcp_lesson.own_server runs it).
    Built("call_tool", "11", "server", "core.server.call_tool", "call_tool", "tool calls"),
    Built("answer_request", "11", "server", "core.server.answer_request", "answer_request",
          "server requests"),
    Built("handle_message", "11", "server", "core.server.handle_message", "handle_message",
          "server messages"),
)

#: The rows by name.
BY_NAME = {built.name: built for built in BUILT}

#: The functions graduation runs the course's tests on, by name, with their lesson.
GRADUATED = {built.name: built.lesson for built in BUILT if built.graduates}


#: The names of the functions that :func:`mcp_lesson.selfcheck.check` checks on a table.
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

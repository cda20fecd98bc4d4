"""A learner's submission, seen from the judge: its functions as stand-ins.

:class:`Submission` owns one :class:`~.sandbox.Sandbox`. It loads the learner's
work there (a package, or a notebook's cells), and :meth:`Submission.function`
gives, for each name, a function of the judge's own: calling it sends the
call into the sandbox and returns what came back as fresh, plain Python
values, or raises what was raised, as the built-in exception it derives from
(a ``TypeError`` subclass of the learner's arrives as a ``TypeError`` whose
type keeps the learner's name). Whatever the learner's code does to its own
interpreter stays in the sandbox: the values the judge compares were made
here, by the wire format, with their exact types.

The rules of time, per submission:

* each call has :attr:`Submission.call_limit` seconds; a call that runs past
  it, or that ends the worker (``os._exit``, a crash, a memory limit), is
  stopped, and the worker is started again, and the work loaded again, for
  the calls after it. After :attr:`Submission.strikes` such calls of one
  function (one, by default: "a loop costs one time limit"), its later calls
  fail at once with the same reason; graduation allows a few, so that a loop
  on one input costs that call alone;
* all requests together (loading, cells, calls, and loading again after a
  restart) have :attr:`Submission.budget` seconds: none is given more than what
  is left of it, and past it every one fails at once;
* loading again after a restart has one deadline for all its steps: the time
  they took the first time, and one :attr:`Submission.call_limit` more (never
  past the budget). Work that loads only once (cells that run slower when they
  run again) costs the submission the rest of its work, never more time.

The rules of size: one answer is at most :attr:`~.sandbox.Limits.answer` bytes
and :data:`~.wire.DECODED_ITEMS` items, and all the answers of a submission at
most :data:`ANSWER_BYTES` bytes and :data:`ANSWER_ITEMS` items; past a cap, the
call fails (and that function's later calls at once), in words that say which.
What comes back of an argument is compared with what was sent, never written
into the judge's own values: a function that changed what it was given fails
that call with :class:`ChangedArgument`, and the tables the judge's tests hold
are the same for every submission.
"""

import builtins
import time

from . import wire
from .sandbox import Limits, Sandbox, Stopped

#: The built-in exceptions a learner's exception may arrive as.
_ARRIVES_AS = {
    name: getattr(builtins, name)
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), Exception)
}


class DidNotFinish(Exception):
    """A call of the learner's function that gave no answer: it ran past its time,
    or its process ended."""


class LearnerExit(Exception):
    """The learner's code raised SystemExit or KeyboardInterrupt (an ordinary
    exception here: it must not stop the judge)."""


class ChangedArgument(Exception):
    """The learner's function changed a list or a dict it was given (its caller's
    value is left as it was)."""


#: Bytes of answers one submission may send, in all (a lesson's notebook: a few MB).
ANSWER_BYTES = 256 * 2**20
#: Items of values one submission may send back, in all.
ANSWER_ITEMS = 5_000_000


class NotLoaded(NotImplementedError):
    """The learner's function could not be reached: the work did not load, or has no such name."""


_MADE: dict = {}


def arrived(info):
    """The exception the judge raises for one the learner's code raised (``info``
    as the worker reports it)."""
    name, base, text = str(info.get("type")), str(info.get("base")), str(info.get("text", ""))
    if base in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
        exc = LearnerExit(f"{name}: {text}" if text else name)
        exc.learner_where = (info.get("file"), info.get("line"), info.get("function"))
        return exc
    cls = _ARRIVES_AS.get(base, Exception)
    if name != cls.__name__:
        key = (name, cls)
        if key not in _MADE:
            try:
                _MADE[key] = type(name, (cls,), {"__module__": "learner"})
            except TypeError:
                _MADE[key] = cls
        cls = _MADE[key]
    try:
        exc = cls(text)
    except Exception:
        exc = Exception(f"{name}: {text}")
    #: Where in the learner's code it was raised: file (or cell), line, function.
    exc.learner_where = (info.get("file"), info.get("line"), info.get("function"))
    return exc


def _ordinal(number):
    return {1: "first", 2: "second", 3: "third"}.get(number, f"{number}th")


class Submission:
    """One learner's work, in its own sandbox."""

    def __init__(
        self,
        files=None,
        lib=None,
        *,
        call_limit=10.0,
        budget=600.0,
        limits=Limits(),  # noqa: B008  (frozen)
        borrowable=(),
        lesson=None,
        strikes=1,
    ):
        self.sandbox = Sandbox(files, lib, limits)
        self.strikes, self.stuck = strikes, {}  # name: its calls that gave no answer
        #: The course's functions the learner's code may borrow (registry.may_borrow),
        #: run by the course host under the learner's limits; ``lesson`` names
        #: the lesson in the words of a refusal.
        self.borrowable, self.lesson = tuple(borrowable), lesson
        self.host = None
        self.call_limit, self.budget = call_limit, budget
        self.spent = 0.0
        self.received = 0  # bytes of answers, in all
        self.items = wire.Cap(ANSWER_ITEMS)  # what is left of the items answers may hold, in all
        self.steps = []  # how to load the work again after a restart: (request, limit)
        self.steps_took = 0.0  # the seconds those steps took the first time
        self.reload_failure = None  # why the work could not be loaded again, once it could not
        self.broken = {}  # name: why its calls fail at once
        self.load_failure = None
        self.origin = "cells"
        self.printed_to = None  # a callable taking the text the learner's code printed
        #: The course's functions the learner's code may not borrow right now
        #: (those the running test grades); "all" refuses every one.
        self.refused = set()
        self.sandbox.course = self._course_call

    def refusal(self, name):
        """Why the learner's code may not borrow the course's ``name`` here, in words."""
        from .stand_in import rule

        if self.refused != "all" and name in self.borrowable:
            return f"{name} is what this test grades: it must be your own here"
        allowed = () if self.refused == "all" else self.borrowable
        return f"the course's {name} is not yours to borrow: " + rule(allowed, self.lesson)

    def _course_call(self, request, deadline):
        """Run the course's function the worker asked for, unless it is refused: in
        the course host, under the learner's limits and by the request's deadline."""
        from .channel import Broken
        from .course_host import CourseHost

        name = request.get("course")
        if type(name) is not str:
            return {"refused": "a course function is asked for by its name"}
        if name not in self.borrowable or self.refused == "all" or name in self.refused:
            return {"refused": self.refusal(name)}
        if self.host is None:
            self.host = CourseHost(self.sandbox.limits)
        try:
            return self.host.call(name, request.get("args"), request.get("kwargs"), deadline)
        except Broken as broken:
            if broken.why == "late":
                raise
            return {
                "raised": {
                    "type": "MemoryError",
                    "text": f"the course's {name} ended before it answered "
                    "(it ran out of the memory your work may use)",
                }
            }

    @classmethod
    def for_lesson(cls, lesson, files=None, **options):
        """A submission for lesson ``lesson`` (``"03"``; None for work of no lesson,
        such as a package): its stand-in ``mcp_lesson`` serves what the lesson may
        borrow (``registry.may_borrow``), and refuses the rest in words."""
        import shutil
        import tempfile
        from pathlib import Path

        from mcp_lesson.exercises import registry

        from . import stand_in

        borrowable = registry.may_borrow(lesson) if lesson else ()
        lib = Path(tempfile.mkdtemp(prefix="judge-lib-"))
        try:
            stand_in.write(lib, borrowable, lesson)
            return cls(files, lib, borrowable=borrowable, lesson=lesson, **options)
        finally:
            shutil.rmtree(lib, ignore_errors=True)

    @property
    def kind(self):
        return self.sandbox.kind

    def close(self):
        if self.host is not None:
            self.host.close()
        self.sandbox.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # --- loading ------------------------------------------------------------------------

    def used_up(self):
        """The words for a submission past its budget."""
        return f"the submission used up its {self.budget:g} s"

    def _ask(self, request, limit, deadline=None):
        """The sandbox's answer to ``request``, within ``limit`` seconds, what is left of
        the budget, and ``deadline`` (a ``time.monotonic()``); the time is charged."""
        budget_left = self.budget - self.spent
        left = budget_left if deadline is None else min(budget_left, deadline - time.monotonic())
        words = self.used_up() if left == budget_left else self._reload_words()
        if left <= 0:
            raise Stopped(words)
        started, channel = time.monotonic(), self.sandbox.channel
        before = channel.received if channel is not None else 0
        try:
            return self.sandbox.request(request, min(limit, left))
        except Stopped:
            if (
                limit > left and time.monotonic() - started >= left
            ):  # cut by the budget, not its limit
                raise Stopped(words) from None
            raise
        finally:
            self.spent += time.monotonic() - started
            now = self.sandbox.channel
            if now is not None:
                self.received += now.received - (before if now is channel else 0)

    def _reload_words(self):
        return (
            f"loading the work again took longer than it did the first time "
            f"({self.steps_took:.1f} s) and {self.call_limit:g} s more"
        )

    def _step_done(self, request, limit, started):
        self.steps.append((request, limit))
        self.steps_took += time.monotonic() - started

    def _reload(self):
        """Start a fresh worker and load the work into it again, all of it by one deadline;
        a reload that fails is not tried again (:attr:`reload_failure`)."""
        if self.reload_failure is not None:
            raise Stopped(self.reload_failure)
        deadline = time.monotonic() + self.steps_took + self.call_limit
        try:
            for request, limit in self.steps:
                self._ask(request, limit, deadline)
            if self.broken:  # a function that was stopped stays stopped, even called from inside
                self._ask({"op": "disable", "names": self.broken}, self.call_limit, deadline)
        except Stopped as stop:
            self.reload_failure = str(stop)
            self.sandbox.stop()
            raise

    def import_package(self, name, limit=30.0):
        """Import the package ``name`` (a folder of the submission). Returns
        ``(names, problems)``; on failure, sets :attr:`load_failure` and returns
        ``([], {})``."""
        self.origin = "package"
        request = {"op": "import", "package": name}
        started = time.monotonic()
        try:
            answer = self._ask(request, limit)
        except Stopped as stop:
            self.load_failure = str(stop)
            return [], {}
        if not answer.get("ok"):
            self.load_failure = answer.get("error") or {"type": "Exception", "text": ""}
            return [], {}
        self._step_done(request, limit, started)
        return list(answer.get("names", [])), dict(answer.get("problems", {}))

    def load_failure_words(self):
        """Why the work could not be loaded, in a few words."""
        failure = self.load_failure
        if not isinstance(failure, dict):
            return f"importing it did not work ({failure})"
        text = " ".join(str(failure.get("text", "")).split())[:150]
        return f"importing it raised {failure.get('type')}" + (f" ({text})" if text else "")

    def run_cell(self, source, name, limit):
        """Run one cell; returns ``(printed, error)``, the error a dict (type,
        base, text, line) or None; a cell that does not finish gives
        ``{"type": "DidNotFinish", "text": why}`` and is left out of later reloads; once
        the work could not be loaded again, no later cell runs."""
        request = {"op": "cell", "source": source, "name": name}
        started = time.monotonic()
        try:
            if self.reload_failure is not None:
                raise Stopped(
                    f"not run: the cells before it could not be run again ({self.reload_failure})"
                )
            answer = self._ask(request, limit)
        except Stopped as stop:
            try:
                if self.reload_failure is None:
                    self._reload()
            except Stopped:
                pass
            return "", {
                "type": "DidNotFinish",
                "base": "DidNotFinish",
                "text": str(stop),
                "line": None,
            }
        self._step_done(request, limit, started)
        return answer.get("printed", ""), answer.get("error")

    def names(self):
        """The callables the cells defined."""
        try:
            return list(self._ask({"op": "names"}, self.call_limit).get("names", []))
        except Stopped:
            return []

    # --- calling ------------------------------------------------------------------------

    def call(self, name, args, kwargs):
        """Call the learner's ``name`` in the sandbox (see the module's docstring)."""
        if self.spent >= self.budget:
            raise DidNotFinish(self.used_up())
        if self.load_failure:
            raise NotLoaded(f"{name} could not be reached: {self.load_failure_words()}")
        if name in self.broken:
            raise DidNotFinish(self.broken[name])
        if self.received > ANSWER_BYTES or self.items.items <= 0:
            raise DidNotFinish(
                f"the submission's answers passed {ANSWER_BYTES // 2**20} MB or "
                f"{ANSWER_ITEMS:,} items in all"
            )
        sent = [
            a if isinstance(a, (list, dict)) else None for a in args
        ]  # what can come back changed
        request = {
            "op": "call",
            "from": self.origin,
            "name": name,
            "args": wire.encode(list(args)),
            "kwargs": wire.encode(dict(kwargs)),
        }
        try:
            answer = self._ask(request, self.call_limit)
        except Stopped as stop:
            why = f"{name} gave no answer: {stop}"
            self.stuck[name] = self.stuck.get(name, 0) + 1
            if self.stuck[name] >= self.strikes:
                self.broken[name] = (
                    why
                    if self.strikes == 1
                    else (
                        f"{name} was not called again: it gave no answer {self.strikes} times ({stop})"
                    )
                )
            try:
                self._reload()
            except Stopped as again:
                self.load_failure = f"it could not be loaded again ({again})"
            raise DidNotFinish(why) from None
        if answer.get("missing"):
            raise NotLoaded(f"{name} is not defined")
        printed = answer.get("printed")
        if printed and self.printed_to is not None:
            self.printed_to(printed)
        changed = self._changed(answer, sent, kwargs)
        try:
            if "raised" in answer:
                exc = arrived(answer["raised"])
            elif changed:
                exc = ChangedArgument(
                    f"{name} changed {changed} it was given: a graded function must "
                    "leave what it is given as it was"
                )
            else:
                return wire.decode(answer["value"], cap=self._cap())
        except wire.TooLarge as large:
            self.broken[name] = f"{name} answered with {large}"
            raise DidNotFinish(self.broken[name]) from None
        except (ValueError, KeyError, TypeError):
            raise DidNotFinish(f"{name} answered with something that is not a value") from None
        raise exc

    def _cap(self):
        """The cap of one answer: :data:`~.wire.DECODED_ITEMS` items, within what is left
        of the submission's own."""
        return wire.Cap(min(wire.DECODED_ITEMS, max(self.items.items, 0)), within=self.items)

    @staticmethod
    def _changed(answer, sent, kwargs):
        """Which argument the learner's function changed ("the first argument", "an
        argument given by name"), or None: what came back is compared, as the wire's
        text, with what was sent; nothing of it is kept."""
        back_args, back_kwargs = answer.get("args"), answer.get("kwargs")
        if wire.dumps(back_args) != wire.dumps(wire.encode(sent)):
            if type(back_args) is list and len(back_args) == len(sent) + 1:
                for index, value in enumerate(sent):
                    if wire.dumps(back_args[index + 1]) != wire.dumps(wire.encode(value)):
                        return f"the {_ordinal(index + 1)} argument"
            return "the arguments"
        kept = {key: value for key, value in kwargs.items() if isinstance(value, (list, dict))}
        if wire.dumps(back_kwargs) != wire.dumps(wire.encode(kept)):
            return "an argument given by name"
        return None

    def function(self, name):
        """A function of the judge's that calls the learner's ``name``."""

        def learner_function(*args, **kwargs):
            return self.call(name, args, kwargs)

        learner_function.__name__ = learner_function.__qualname__ = name
        return learner_function

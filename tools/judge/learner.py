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
* all calls together have :attr:`Submission.budget` seconds; past it, every
  call fails at once.
"""

import builtins
import time

from . import wire
from .sandbox import Limits, Sandbox, Stopped

#: The built-in exceptions a learner's exception may arrive as.
_ARRIVES_AS = {name: getattr(builtins, name) for name in dir(builtins)
               if isinstance(getattr(builtins, name), type)
               and issubclass(getattr(builtins, name), Exception)}


class DidNotFinish(Exception):
    """A call of the learner's function that gave no answer: it ran past its time,
    or its process ended."""


class LearnerExit(Exception):
    """The learner's code raised SystemExit or KeyboardInterrupt (an ordinary
    exception here: it must not stop the judge)."""


class NotLoaded(NotImplementedError):
    """The learner's function could not be reached: the work did not load, or has no such name."""


_MADE = {}


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


def _write_back(original, after):
    """Make ``original`` (an argument the judge passed) hold what the learner's
    function left in its copy, so that a change to an argument is seen."""
    if type(original) is dict and type(after) is dict and original != after:
        original.clear()
        original.update(after)
    elif type(original) is list and type(after) is list and original != after:
        original[:] = after


class Submission:
    """One learner's work, in its own sandbox."""

    def __init__(self, files=None, lib=None, *, call_limit=10.0, budget=600.0, limits=Limits(),
                 borrowable=(), lesson=None, strikes=1):
        self.sandbox = Sandbox(files, lib, limits)
        self.strikes, self.stuck = strikes, {}  # name: its calls that gave no answer
        #: The course's functions the learner's code may borrow (registry.may_borrow),
        #: run by the course host under the learner's limits; ``lesson`` names
        #: the lesson in the words of a refusal.
        self.borrowable, self.lesson = tuple(borrowable), lesson
        self.host = None
        self.call_limit, self.budget = call_limit, budget
        self.spent = 0.0
        self.steps = []  # how to load the work again after a restart: (request, limit)
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
            return {"raised": {"type": "MemoryError",
                               "text": f"the course's {name} ended before it answered "
                                       "(it ran out of the memory your work may use)"}}

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

    def _ask(self, request, limit):
        started = time.monotonic()
        try:
            return self.sandbox.request(request, limit)
        finally:
            self.spent += time.monotonic() - started

    def _reload(self):
        """Start a fresh worker and load the work into it again."""
        for request, limit in self.steps:
            self._ask(request, limit)
        if self.broken:  # a function that was stopped stays stopped, even called from inside
            self._ask({"op": "disable", "names": self.broken}, self.call_limit)

    def import_package(self, name, limit=30.0):
        """Import the package ``name`` (a folder of the submission). Returns
        ``(names, problems)``; on failure, sets :attr:`load_failure` and returns
        ``([], {})``."""
        self.origin = "package"
        request = {"op": "import", "package": name}
        try:
            answer = self._ask(request, limit)
        except Stopped as stop:
            self.load_failure = str(stop)
            return [], {}
        if not answer.get("ok"):
            self.load_failure = answer.get("error") or {"type": "Exception", "text": ""}
            return [], {}
        self.steps.append((request, limit))
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
        ``{"type": "DidNotFinish", "text": why}`` and is left out of later reloads."""
        request = {"op": "cell", "source": source, "name": name}
        try:
            answer = self._ask(request, limit)
        except Stopped as stop:
            try:
                self._reload()
            except Stopped:
                pass
            return "", {"type": "DidNotFinish", "base": "DidNotFinish", "text": str(stop),
                        "line": None}
        self.steps.append((request, limit))
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
        if self.load_failure:
            raise NotLoaded(f"{name} could not be reached: {self.load_failure_words()}")
        if name in self.broken:
            raise DidNotFinish(self.broken[name])
        if self.spent > self.budget:
            raise DidNotFinish(f"the submission used up its {self.budget:g} s of calls")
        request = {"op": "call", "from": self.origin, "name": name,
                   "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))}
        try:
            answer = self._ask(request, self.call_limit)
        except Stopped as stop:
            why = f"{name} gave no answer: {stop}"
            self.stuck[name] = self.stuck.get(name, 0) + 1
            if self.stuck[name] >= self.strikes:
                self.broken[name] = why if self.strikes == 1 else (
                    f"{name} was not called again: it gave no answer {self.strikes} times ({stop})")
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
        try:
            for original, after in zip(args, wire.decode(answer["args"])):
                _write_back(original, after)
            after = wire.decode(answer["kwargs"])
            for key, original in kwargs.items():
                if key in after:
                    _write_back(original, after[key])
            if "raised" in answer:
                exc = arrived(answer["raised"])
            else:
                return wire.decode(answer["value"])
        except (ValueError, KeyError, TypeError):
            raise DidNotFinish(f"{name} answered with something that is not a value") from None
        raise exc

    def function(self, name):
        """A function of the judge's that calls the learner's ``name``."""
        def learner_function(*args, **kwargs):
            return self.call(name, args, kwargs)

        learner_function.__name__ = learner_function.__qualname__ = name
        return learner_function

"""The judge's worker: the only process that runs a learner's code.

It runs inside the sandbox (see sandbox.py) as ``python -I -S worker.py``,
with the standard library, the sandbox's stand-in of ``mcp_lesson`` and the
learner's files, nothing else. It reads one request a line on stdin and
answers each with one line on the channel it was given (the file descriptor
that was stdout when it started; the learner's own prints go elsewhere):

* ``{"op": "import", "package": NAME}``: import the package ``NAME`` from the
  work folder; the answer lists its public callables;
* ``{"op": "cell", "source": TEXT, "name": NAME}``: run one cell of a notebook
  (already plain Python) in the notebook's namespace; the answer has what it
  printed and its error, if any;
* ``{"op": "names"}``: the callables the cells have defined;
* ``{"op": "call", "from": "package" or "cells", "name": N, "args": [...],
  "kwargs": {...}}``: call a function on values in the wire format; the answer
  is the value it returned, or the exception it raised, as data, and the
  arguments as they are after the call (a function may change a dict it was
  given).

Nothing here decides anything: the answers are data, and the judge, outside,
compares them with what it expects. This file imports only the standard
library (the sandbox has nothing else) and must stay that way.
"""

import builtins
import io
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves it out
import wire

_BUILTIN_NAMES = {name: value for name, value in vars(builtins).items()}
PRINTED_LIMIT, CUT = wire.PRINTED_LIMIT, wire.CUT
_CUT_NOTE = (
    f"\n{CUT}this cell printed more than {PRINTED_LIMIT:,} characters; "
    "the rest was dropped while grading\n"
)


class _Capped(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters written to it."""

    def __init__(self, limit=PRINTED_LIMIT):
        self.parts, self.size, self.limit, self.cut = [], 0, limit, False

    def writable(self):
        return True

    def write(self, text):
        text = str.__str__(text) if isinstance(text, str) else str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > room:
            self.cut = True
        return len(text)

    def value(self):
        text = "".join(self.parts)
        return text + (_CUT_NOTE if self.cut else "")


def _builtin_base(exc_type):
    """The nearest built-in exception class ``exc_type`` derives from, by name."""
    try:
        for cls in type.__dict__["__mro__"].__get__(exc_type):
            name = type.__dict__["__name__"].__get__(cls)
            if _BUILTIN_NAMES.get(name) is cls:
                return name
    except Exception:
        pass
    return "BaseException"


def _text_of(exc):
    """An exception's text as Python prints it (``str(exc)``, which may be the
    learner's own ``__str__``), or the base class's when that fails."""
    for read in (str, BaseException.__str__):
        try:
            text = read(exc)
            if isinstance(text, str):
                return str.__str__(text)
        except BaseException:
            continue
    return "<an exception whose text cannot be read>"


#: The folder of the learner's files (the last argument), set by main().
WORK = None


def _learner_frame(exc, where):
    """(file, line, function) of the innermost frame of the learner's own code:
    a cell (named ``where``) or a file of the work folder."""
    found = (None, None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename
        if name == where or (WORK and name.startswith(WORK + os.sep)):
            found = (name, frame.lineno, frame.name)
    if (
        isinstance(exc, SyntaxError)
        and exc.filename
        and (exc.filename == where or (WORK and str(exc.filename).startswith(WORK + os.sep)))
    ):
        found = (exc.filename, exc.lineno, None)
    return found


def raised(exc, where=None):
    """An exception as data: its type's name, its built-in base, its text, and
    where in the learner's code it came from (file relative to the work folder,
    or the cell's name; line; function)."""
    name = type.__dict__["__name__"].__get__(type(exc))
    info = {
        "type": name if type(name) is str else "Exception",
        "base": _builtin_base(type(exc)),
        "text": _text_of(exc)[:5_000],
    }
    try:
        file, line, function = _learner_frame(exc, where)
        if file and WORK and file.startswith(WORK + os.sep):
            file = file[len(WORK) + 1 :]
        info.update(file=file, line=line, function=function)
        cells = [
            frame.filename
            for frame in traceback.extract_tb(exc.__traceback__)
            if frame.filename.startswith("<cell ")
        ]
        if cells:  # the innermost cell of the notebook it passed through (maybe another's)
            info["cell"] = cells[-1]
        if isinstance(exc, SyntaxError):
            info["text"] = str(exc.msg)
    except BaseException:
        pass
    return info


class Worker:
    def __init__(self, channel):
        self.channel = channel
        self.stdin = None
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.package = None

    def answer(self, message):
        data = (wire.dumps(message) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(self.channel, view) :]

    def course(self, name, args, kwargs):
        """Ask the judge to run the course's function ``name`` (outside the
        sandbox) and give back its answer. The judge may refuse (a function this
        lesson may not borrow): then a ``LookupError`` that says why."""
        self.answer(
            {"course": name, "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))}
        )
        reply = wire.loads(self.stdin.readline())
        if reply.get("refused"):
            why = (
                reply["refused"]
                if isinstance(reply["refused"], str)
                else f"the course's {name} is not yours: it cannot do your work here"
            )
            raise LookupError(why)
        if isinstance(reply.get("raised"), dict):
            raised = reply["raised"]
            cls = _BUILTIN_NAMES.get(str(raised.get("type")))
            if not (isinstance(cls, type) and issubclass(cls, Exception)):
                cls = RuntimeError
            raise cls(str(raised.get("text", "")))
        return wire.decode(reply["value"])

    def run(self, stream):
        self.stdin = stream
        builtins.__judge_course__ = self.course  # the stand-in mcp_lesson's way out
        for line in stream:
            try:
                request = wire.loads(line)
                handler = getattr(self, "op_" + str(request.get("op")), None)
                if handler is None:
                    raise ValueError(f"no such request: {request.get('op')!r}")
                self.answer(handler(request))
            except (ValueError, KeyError, TypeError) as exc:
                self.answer({"ok": False, "protocol": _text_of(exc)})

    def _printing(self, work):
        """Run ``work()`` with sys.stdout and sys.stderr caught; (result, printed)."""
        caught = _Capped()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = caught
        try:
            return work(), caught
        finally:
            sys.stdout, sys.stderr = saved

    def op_import(self, request):
        import importlib

        name = request["package"]

        def load():
            try:
                return importlib.import_module(name), None
            except BaseException as exc:  # SystemExit and KeyboardInterrupt too
                return None, raised(exc)

        (module, error), printed = self._printing(load)
        if module is None:
            return {"ok": False, "error": error, "printed": printed.value()}
        self.package = module
        problems = getattr(module, "PROBLEMS", None)
        if type(problems) is dict:
            problems = {str(k): str(v) for k, v in dict.items(problems)}
        else:
            problems = {}
        return {
            "ok": True,
            "names": self._callables(vars(module)),
            "problems": problems,
            "printed": printed.value(),
        }

    def op_cell(self, request):
        where = str(request.get("name") or "<cell>")

        def run():
            try:
                exec(compile(request["source"], where, "exec"), self.namespace)
            except BaseException as exc:
                return raised(exc, where)
            return None

        error, printed = self._printing(run)
        return {"ok": True, "error": error, "printed": printed.value()}

    @staticmethod
    def _callables(namespace):
        names = []
        for name, value in list(dict.items(namespace)):
            if type(name) is str and not name.startswith("_") and callable(value):
                names.append(name)
        return names

    def op_disable(self, request):
        """Replace each named function (in the cells' namespace, and in every
        module of the package) by one that fails at once: it was stopped before."""
        names = {str(name): str(why) for name, why in dict(request.get("names", {})).items()}

        def stopped(name, why):
            def function(*args, **kwargs):
                raise RuntimeError(why)

            function.__name__ = name
            return function

        places = [self.namespace]
        if self.package is not None:
            prefix = self.package.__name__
            places += [
                vars(module)
                for key, module in list(sys.modules.items())
                if module is not None and (key == prefix or key.startswith(prefix + "."))
            ]
        for place in places:
            for name, why in names.items():
                if callable(dict.get(place, name)):
                    place[name] = stopped(name, why)
        return {"ok": True}

    def op_names(self, request):
        return {"ok": True, "names": self._callables(self.namespace)}

    def op_call(self, request):
        source = (
            vars(self.package)
            if request.get("from") == "package" and self.package
            else self.namespace
        )
        function = dict.get(source, request["name"])
        if function is None or not callable(function):
            return {"ok": False, "missing": True}
        args = wire.decode(request.get("args", ["L"]))
        kwargs = wire.decode(request.get("kwargs", ["D"]))

        def call():
            try:
                return function(*args, **kwargs), None
            except BaseException as exc:
                return None, raised(exc)

        (value, error), printed = self._printing(call)
        # Only what can change goes back: a list's or a dict's contents.
        answer = {
            "ok": True,
            "printed": printed.value(),
            "args": wire.encode([a if isinstance(a, (list, dict)) else None for a in args]),
            "kwargs": wire.encode({k: v for k, v in kwargs.items() if isinstance(v, (list, dict))}),
        }
        if error is not None:
            answer["raised"] = error
        else:
            answer["value"] = wire.encode(value)
        return answer


def main():
    channel = os.dup(1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    sys.setrecursionlimit(3_000)
    args = sys.argv[1:]
    if args[:1] == ["--processes"]:  # inside the sandbox's own user namespace (sandbox.py)
        import resource

        resource.setrlimit(resource.RLIMIT_NPROC, (int(args[1]), int(args[1])))
        args = args[2:]
    worker = Worker(channel)
    worker.answer({"ready": True})  # the sandbox started: whatever follows is the learner's
    if args[:1] == ["--copy"]:  # the submission, read-only, into the work folder (a tmpfs)
        import shutil

        shutil.copytree(args[1], args[-1], symlinks=True, dirs_exist_ok=True)
        args = args[2:]
    global WORK
    WORK = os.path.abspath(args[-1]) if args else None
    for folder in reversed(args):
        sys.path.insert(0, folder)
    stdin = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    worker.run(stdin)


if __name__ == "__main__":
    main()

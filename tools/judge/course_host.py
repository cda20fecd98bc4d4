"""The course host: runs the course's functions that learner code borrows.

A learner's cell may call a function that an earlier lesson built
(``registry.may_borrow``); the sandbox has none of the course's code, so the
worker asks the judge, and the judge asks this process. It is the course's
code on the learner's values, and the learner chose those values: a
conversation built to make the course's ``audit`` slow, a message built to be
huge. So it is not run in the judge itself but here, in a process of its own
that the judge starts with the learner's memory limit and ends when the
learner's call runs out of time (course.py's :class:`CourseHost`): the cost is
the learner's, never the class's.

Protocol, one JSON line each way (the judge's wire format for values):
``{"name": N, "args": [...], "kwargs": {...}}`` in; ``{"value": ...}`` or
``{"raised": {"type": T, "text": S}}`` out (the exception the course's function
raised: a learner's code may catch the ``TypeError`` of ``create_request``).
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    sys.path[:0] = [ROOT]
    from mcp_lesson.exercises import registry
    from tools.judge import wire

    out = os.fdopen(os.dup(1), "w", encoding="ascii")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # nothing the course prints may reach the channel
    for line in sys.stdin:
        try:
            request = wire.loads(line)
            function = registry.borrowed(str(request["name"]))
            args, kwargs = wire.decode(request["args"]), wire.decode(request["kwargs"])
            answer = {"value": wire.encode(function(*args, **kwargs))}
        except Exception as exc:
            try:
                text = str(exc)[:2_000]
            except Exception:
                text = ""
            answer = {"raised": {"type": type(exc).__name__, "text": text}}
        out.write(wire.dumps(answer) + "\n")
        out.flush()


class CourseHost:
    """The judge's side: one course host process, started when first needed,
    with ``limits`` (a :class:`~.sandbox.Limits`: memory and CPU time), and ended
    when a call runs past its deadline, breaks the protocol, or at :meth:`close`."""

    def __init__(self, limits):
        self.limits, self.process, self.channel = limits, None, None

    def _start(self):
        import resource

        from mcp_lesson.shared.processes import die_with_parent

        from .channel import Channel

        limits = self.limits

        def limit():  # in the child, before exec: imported above, never here (fork, threads)
            die_with_parent()
            for which, value in (
                (resource.RLIMIT_AS, limits.memory),
                (resource.RLIMIT_CPU, limits.cpu),
                (resource.RLIMIT_CORE, 0),
            ):
                try:
                    resource.setrlimit(which, (value, value))
                except (ValueError, OSError):
                    pass

        self.process = subprocess.Popen(
            [sys.executable, "-I", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            preexec_fn=limit,
            start_new_session=True,
            env={
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1",
            },
        )
        self.channel = Channel(
            self.process.stdin.fileno(), self.process.stdout.fileno(), self.limits.answer
        )

    def call(self, name, args, kwargs, deadline):
        """The course's ``name`` on ``args`` and ``kwargs`` (wire data), by ``deadline``:
        ``{"value": ...}`` or ``{"raised": ...}``; a :class:`~.channel.Broken` when the
        host did not answer in time (it is then ended)."""
        from .channel import Broken

        if self.process is None or self.process.poll() is not None:
            self.close()
            self._start()
        try:
            self.channel.send({"name": name, "args": args, "kwargs": kwargs}, deadline)
            answer = self.channel.receive(deadline)
        except Broken:
            self.close()
            raise
        if "value" not in answer and "raised" not in answer:
            self.close()
            raise Broken("garbage")
        return answer

    def close(self):
        from mcp_lesson.shared.processes import kill_session

        process, self.process = self.process, None
        if process is not None:
            kill_session(process)


if __name__ == "__main__":
    main()

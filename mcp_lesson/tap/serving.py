"""The HTTP tap as a program: listen on 127.0.0.1, pass every request on to the server
through :class:`~mcp_lesson.tap.http.HttpTap`, record, and stop on SIGINT, SIGTERM or SIGHUP
(``python -m mcp_lesson.tap --http``)."""

import signal
import time

from mcp_lesson.tap._settings import MAX_LINE, MAX_WAITING
from mcp_lesson.tap.http import HttpTap
from mcp_lesson.tap.judge import CourseJudge
from mcp_lesson.tap.listener import BACKLOG, listen, protocol
from mcp_lesson.tap.stdio import Recorder, _is_stdout, _peak_memory, _say
from mcp_lesson.version import __version__

#: Seconds that stopping the tap waits for open answers (event streams) before it cuts them.
SHUTDOWN_WAIT = 2


def serve_http(to, path, port=0, judge=None, max_line=MAX_LINE, append=False, announce=None):
    """The HTTP tap: listen on 127.0.0.1:``port`` (0: a free one), pass everything on to ``to``,
    record to ``path``, until SIGINT, SIGTERM or SIGHUP; returns the exit status (0 when stopped so).

    Once it listens, ``announce`` (by default a line on stderr) is called with its address:
    ``to``'s path on the tap's port, which is what a client is given instead of ``to``.
    """
    import uvicorn

    judge = judge or CourseJudge()
    if _is_stdout(path):
        _say(f"the recording cannot go to {path}: name a file")
        return 2
    try:
        recorder = Recorder(path, append, MAX_WAITING + 3 * max_line)
        tap = HttpTap(to, recorder, judge, max_line)
    except (OSError, ValueError) as exc:
        _say(str(exc))
        return 2
    try:
        listener = listen(port)
    except OSError as exc:
        _say(f"cannot listen on 127.0.0.1:{port}: {exc}")
        recorder.close()
        return 2
    url = f"http://127.0.0.1:{listener.getsockname()[1]}{tap.path}"
    signals = []

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            # As uvicorn's own, but the signal is not raised again once the server has
            # stopped (uvicorn's way): the tap still has its last entries to write.
            signals.append(sig)
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            self.should_exit = True

        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                (
                    announce
                    or (lambda address: _say(f"listening on {address} (passing on to {to})"))
                )(url)

    import importlib.util

    # uvloop's event loop where it is installed (pyproject pins it): a turn of asyncio's own
    # loop, and its transports, cost the tap some 100-200 us of CPU a request more.
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    config = uvicorn.Config(
        tap,
        http=protocol(),
        loop=loop,
        log_level="critical",
        lifespan="on",
        backlog=BACKLOG,
        timeout_graceful_shutdown=SHUTDOWN_WAIT,
        access_log=False,
        server_header=False,
        date_header=False,  # the server's own pass on
        proxy_headers=False,
    )  # a client's X-Forwarded-For is passed on, not taken
    server = Server(config)
    recorder.event(
        "start",
        wall=round(time.time(), 6),
        transport="http",
        listen=url,
        to=to,
        judge=judge.name,
        tap=__version__,
    )
    previous = None
    try:
        previous = signal.signal(
            signal.SIGHUP, lambda number, frame: server.handle_exit(number, frame)
        )
    except (ValueError, OSError):
        pass
    try:
        server.run(sockets=[listener])
    finally:
        if previous is not None:
            signal.signal(signal.SIGHUP, previous)
        listener.close()
        if signals:
            recorder.event("signal", signal=signal.Signals(signals[0]).name)
        recorder.event("end", status=0, **_peak_memory())
        recorder.close()
    return 0

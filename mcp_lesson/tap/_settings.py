"""The tap's limits and names, shared by its modules."""

PROG = "mcp_lesson.tap"

#: Bytes read at a time, in each direction.
CHUNK = 65536
#: The longest line kept whole in a recording, in bytes (``--max-line``); a
#: longer one is passed on whole but recorded as its beginning, not judged.
MAX_LINE = 16 * 1024 * 1024
#: The last bytes of a line too long to keep that are kept too (``"tail"``): a
#: response's id may come last (the TypeScript SDK writes it so).
TAIL = 256
#: Bytes of entries kept waiting for an earlier chunk's (see :class:`Recorder`), beyond
#: room for three lines of ``--max-line`` bytes (so that one long line keeps its turn).
MAX_WAITING = 4 * 1024 * 1024
#: Seconds the server gets to exit after one side has ended (``--grace``). Long enough for a
#: server that is still starting when its client has already closed its input (requests
#: piped in: ``uvx mcp-server-time`` took more than 5 s to answer them on a busy machine); a
#: host that wants its server gone sooner sends the tap SIGTERM, which the tap passes on.
GRACE = 30.0
#: Seconds between SIGTERM (or a signal passed on) and SIGKILL.
TERM_WAIT = 1.0
#: Seconds between two looks for a signal the tap was sent (a signal handler
#: only notes it: waking a thread from a handler could deadlock on a lock).
LOOK = 0.05

#: The directions of a recording, and who sends each (for plain words): the recording's own.
from mcp_lesson.shared.recording import DIRECTIONS  # noqa: E402, F401  (re-exported)
from mcp_lesson.shared.recording import SENDERS as SENDER  # noqa: E402, F401  (re-exported)

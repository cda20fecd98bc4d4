"""The audit's checks of the revision each side names along the way, beyond the handshake:
a request whose ``params._meta`` names another revision than its side's first, and over
HTTP the ``MCP-Protocol-Version`` header a client sends after the handshake (``revision``,
``version_header``)."""

import json

from mcp_lesson.tap._settings import SENDER
from mcp_lesson.tap.entries import _protocol_version, id_key
from mcp_lesson.tap.judge import _short


def _check_meta_revision(member, index, direction, said_revision, found):
    """A request whose ``params._meta`` names another revision than its side's first."""
    if not isinstance(member, dict) or "method" not in member or id_key(member.get("id")) is None:
        return
    said = _protocol_version(member, "_meta")
    if said is None:
        return
    first = said_revision.setdefault(direction, said)
    if said != first:
        found(
            index,
            "revision",
            f"this request's params._meta names revision {said}, "
            f"the {SENDER[direction]}'s earlier ones {first}",
        )


def _check_version_header(entry, value, revision, index, found):
    """basic/transports.mdx of 2025-06-18 and 2025-11-25: after the handshake a client MUST send
    ``MCP-Protocol-Version`` on every request over HTTP (one without it is a problem), and
    SHOULD send the negotiated one (another one is a warning)."""
    http = entry.get("http") if isinstance(entry.get("http"), dict) else None
    headers = (
        http.get("headers") if http is not None and isinstance(http.get("headers"), dict) else None
    )
    if (
        headers is None
        or not isinstance(revision, str)
        or not "2025-06-18" <= revision < "2026-07-28"
        or not isinstance(value, dict)
        or value.get("method") == "initialize"
    ):
        return
    sent = headers.get("mcp-protocol-version")
    if sent == revision:
        return
    if sent is None:
        found(
            index,
            "version_header",
            f"the client sent no MCP-Protocol-Version header in a session that "
            f"agreed on {revision}: after the handshake every request over HTTP carries it",
            revision=revision,
        )
        return
    found(
        index,
        "version_header",
        f"the client sent MCP-Protocol-Version {_short(json.dumps(sent), 40)} "
        f"in a session that agreed on {revision}: after the handshake each request carries the "
        f"negotiated revision",
        rule="version_header.other",
        revision=revision,
    )

"""The revision the two sides of a recording agreed on (:func:`agreed_revision`), and the one
each HTTP session or stateless exchange agreed on (:func:`revisions_by_scope`)."""

from mcp_lesson.rules.classification import REVISIONS
from mcp_lesson.shared.recording import time_order as in_time_order
from mcp_lesson.tap._settings import DIRECTIONS
from mcp_lesson.tap.entries import (
    _http_of,
    _method,
    _protocol_version,
    _session_header,
    id_key,
    message_of,
    scope_of,
    show_id,
)
from mcp_lesson.tap.judge import _short

#: The errors by which a server says it does not speak the revision of a request with
#: ``_meta``: the method is unknown to it (-32601), the request is not one it takes
#: (-32600), or the version is unsupported (-32022, 2026-07-28's transport).
PROBE_REFUSALS = (-32601, -32600, -32022)


def agreed_revision(conversation):
    """``(revision, words)``: the revision the two sides agreed on, and how it was agreed.

    The server's answer to ``initialize`` names it (``result.protocolVersion``);
    without a handshake (2026-07-28), a request's ``params._meta`` does
    (``io.modelcontextprotocol/protocolVersion``), once the server has answered
    it with a result, an error of the method's own, or not at all. A *probe* that
    the server refused (one of :data:`PROBE_REFUSALS`: the SDK's ``mcp.Client``
    first sends ``server/discover`` at 2026-07-28, and a server of the handshake
    era answers -32601) agrees on nothing: the handshake that follows decides. ``revision`` is None when nothing says, or when the course
    does not know the revision said (the words say which).
    """
    asked = initialize_id = None
    probe = refused = (
        None  # (revision, id, method) of a request with _meta; the refused one's words
    )
    for entry in conversation:
        if entry.get("direction") not in DIRECTIONS:
            continue
        value, reason = message_of(entry)
        if reason or not isinstance(value, dict):
            continue
        key = id_key(value.get("id"))
        if entry["direction"] == "to_server" and value.get("method") == "initialize":
            if initialize_id is None:
                initialize_id = key
                asked = _protocol_version(value, "params")
        elif (
            entry["direction"] == "from_server"
            and initialize_id is not None
            and "method" not in value
            and key == initialize_id
        ):
            answered = _protocol_version(value, "result")
            if answered is None:
                return None, (
                    "the server did not answer initialize with a protocolVersion; "
                    "judged by the course's rules"
                )
            how = (
                f"the client asked for {answered} in initialize and the server agreed"
                if asked == answered
                else f"the client asked for {asked} in initialize and the server answered {answered}"
            )
            return _known(answered, (refused + "; then " + how) if refused else how)
        elif entry["direction"] == "to_server" and initialize_id is None and probe is None:
            meta = _protocol_version(value, "_meta")
            if meta is not None and key is not None:
                probe = (meta, key, _method(value))
        elif (
            entry["direction"] == "from_server"
            and probe is not None
            and initialize_id is None
            and "method" not in value
            and key == probe[1]
        ):
            revision, _, method = probe
            error = value.get("error") if isinstance(value.get("error"), dict) else {}
            if error.get("code") not in PROBE_REFUSALS:  # a result, or an error of the method's own
                return _known(
                    revision,
                    f"the client's requests carry {revision} in params._meta (no handshake)",
                )
            refused = (
                f"the client tried {revision} ({method}) and the server refused it "
                f"(error {show_id(error.get('code'))})"
            )
            probe = None
    if initialize_id is not None:
        return None, "initialize was never answered; judged by the course's rules"
    if probe is not None:
        return _known(
            probe[0], f"the client's requests carry {probe[0]} in params._meta (no handshake)"
        )
    if refused:
        return None, f"{refused}, and no handshake followed; judged by the course's rules"
    return None, "no initialize and no params._meta name a revision; judged by the course's rules"


def revisions_by_scope(conversation):
    """``{scope: (revision, words)}``: the revision each HTTP scope settled for itself.

    Over HTTP a recording holds many conversations (:func:`scope_of`), and
    each agrees on its own revision: a session (2025-11-25) on the one its
    ``initialize`` answer named (the answer whose ``Mcp-Session-Id`` header
    gave the session its id); an exchange outside any session (a stateless
    request of 2026-07-28, an ``initialize``) on what its own messages say
    (:func:`agreed_revision`). A scope that settles nothing is left out (the
    recording's :func:`agreed_revision` judges it), and so is everything over
    stdio, which is one conversation.
    """
    exchanges, by_scope = {}, {}
    for index in in_time_order(conversation):
        scope = scope_of(conversation[index], exchanges)
        if scope is not None:
            by_scope.setdefault(scope, []).append(conversation[index])
    found = {}
    for scope, entries in by_scope.items():
        if scope[0] != "exchange":
            continue
        revision, how = agreed_revision(entries)
        if revision is None:
            continue
        found[scope] = (revision, how)
        for entry in entries:  # an initialize answer that opens a session settles that session
            http = _http_of(entry)
            session = _session_header(http) if http is not None else None
            if entry.get("direction") == "from_server" and session:
                found.setdefault(
                    ("session", session), (revision, f"{how} (session {_short(session, 40)})")
                )
    return found


def _known(revision, how):
    if revision in REVISIONS:
        return revision, how
    return None, f"{how}; the course does not know {revision}, so judged by the course's rules"

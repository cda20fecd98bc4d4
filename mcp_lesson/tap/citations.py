"""What the specification says, rule by rule: each rule of the tap's audit with its keyword, the
page of each revision that states it and the sentence there (:data:`RULES`), and the one policy
that turns a keyword into a severity (:data:`SEVERITY`):

* MUST and MUST NOT: a problem;
* SHOULD, SHOULD NOT, and what a page states with no keyword: a warning;
* what only an example shows: a note.

:func:`settle` gives a finding of the audit its keyword, its severity and its citation (the page
of the revision in use, the sentence quoted). A finding under a revision whose pages do not state
its rule is dropped: 2026-07-28 answers an unknown resource with -32602, where earlier revisions
named -32002. The sentences are the pages' own, emphasis and code marks left out
(tests/tap/test_citations.py compares them with a checkout of the specification where one is at
hand), and docs/maintaining.md's table of the tap's rules is :func:`table`.
"""

from collections import namedtuple

from mcp_lesson.protocol.revisions import REVISIONS

#: The keyword of a rule -> the severity of its findings.
SEVERITY = {
    "MUST": "problem",
    "MUST NOT": "problem",
    "SHOULD": "warning",
    "SHOULD NOT": "warning",
    "statement": "warning",
    "example": "note",
}
#: The revision cited where the recording agreed on none: the last one with a handshake.
FALLBACK = "2025-11-25"
#: JSON-RPC 2.0 itself, which every revision's messages follow.
JSON_RPC = "https://www.jsonrpc.org/specification"
#: Findings that are no rule of the specification: the tap says what it did not judge.
TAP_NOTES = {
    "not_judged": "a message the tap passed on but did not judge (too long to keep, or "
    "compressed in a way it cannot decode)",
    "not_delivered": "a request the HTTP tap could not pass on: the server could not be reached",
}

#: One rule: its keyword, a summary, and ``{revision: (page, sentence)}`` for each revision that
#: states it (a page under docs/specification/<revision>/, or JSON-RPC's own).
Rule = namedtuple("Rule", "keyword summary where")

_HANDSHAKE = REVISIONS[:4]
_HTTP_SESSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")


def _each(revisions, page, sentence):
    return {revision: (page, sentence) for revision in revisions}


def _by_era(*eras):
    """``{revision: (page, sentence)}`` from ``(revisions, page, sentence)`` triples."""
    where = {}
    for revisions, page, sentence in eras:
        where.update(_each(revisions, page, sentence))
    return where


_JSON_RPC_MUST = (
    "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."
)
_REPLY = "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."
_STDOUT = "The server MUST NOT write anything to its stdout that is not a valid MCP message."
_STDIN = "The client MUST NOT write anything to the server's stdin that is not a valid MCP message."
_STDIO = ((_HANDSHAKE, "basic/transports.mdx"), (("2026-07-28",), "basic/transports/stdio.mdx"))
_HTTP = (
    (_HTTP_SESSIONS, "basic/transports.mdx"),
    (("2026-07-28",), "basic/transports/streamable-http.mdx"),
)
_SAME_ID = "Responses MUST include the same ID as the request they correspond to."
_REUSE = (
    "The request ID MUST NOT have been previously used by the requestor within the same session."
)
_RESOURCES_SHOULD = (
    "Servers SHOULD return standard JSON-RPC errors for common failure cases: "
    "Resource not found: -32002"
)

RULES = {
    "pollution": Rule(
        "MUST NOT",
        "the server's stdout carries a line that is no JSON-RPC message",
        _by_era(*((revisions, page, _STDOUT) for revisions, page in _STDIO)),
    ),
    "pollution.http": Rule(
        "MUST",
        "the server answered an HTTP request with a body that is no JSON",
        _each(REVISIONS[1:], "basic/index.mdx", _JSON_RPC_MUST),
    ),
    "not_json": Rule(
        "MUST NOT",
        "the client wrote a line that is no JSON to the server's stdin",
        _by_era(*((revisions, page, _STDIN) for revisions, page in _STDIO)),
    ),
    "not_json.http": Rule(
        "MUST",
        "the client posted a body that is no JSON",
        _each(REVISIONS[1:], "basic/index.mdx", _JSON_RPC_MUST),
    ),
    "invalid": Rule(
        "MUST",
        "a message that is not valid JSON-RPC under the revision",
        _by_era(
            (
                ("2024-11-05",),
                "basic/messages.mdx",
                "All messages in MCP MUST follow the JSON-RPC 2.0 specification.",
            ),
            (REVISIONS[1:], "basic/index.mdx", _JSON_RPC_MUST),
        ),
    ),
    "id_reused": Rule(
        "MUST NOT",
        "a request id used before by the same side in the session",
        _by_era(
            (("2024-11-05",), "basic/messages.mdx", _REUSE),
            (REVISIONS[1:4], "basic/index.mdx", _REUSE),
        ),
    ),
    "id_reused.in_flight": Rule(
        "MUST NOT",
        "a request id reused while its request is unanswered",
        _by_era(
            (("2024-11-05",), "basic/messages.mdx", _REUSE),
            (REVISIONS[1:4], "basic/index.mdx", _REUSE),
            (("2026-07-28",), JSON_RPC, _REPLY),
        ),
    ),
    "answered_twice": Rule("MUST", "a request answered twice", _each(REVISIONS, JSON_RPC, _REPLY)),
    "unanswered": Rule("MUST", "a request never answered", _each(REVISIONS, JSON_RPC, _REPLY)),
    "broken_off": Rule(
        "MUST",
        "an HTTP answer that broke off before the response to its request",
        _each(REVISIONS[1:], JSON_RPC, _REPLY),
    ),
    "unknown_id": Rule(
        "MUST",
        "a response to an id never sent",
        _by_era(
            (("2024-11-05",), "basic/messages.mdx", _SAME_ID),
            (REVISIONS[1:3], "basic/index.mdx", _SAME_ID),
            (
                REVISIONS[3:],
                "basic/index.mdx",
                "Result responses MUST include the same ID as the request they correspond to.",
            ),
        ),
    ),
    "unmatched": Rule(
        "MUST",
        "an error without a usable id, where the request it answered could be read",
        _by_era(
            (("2024-11-05",), "basic/messages.mdx", _SAME_ID),
            (REVISIONS[1:3], "basic/index.mdx", _SAME_ID),
            (
                REVISIONS[3:],
                "basic/index.mdx",
                "Error responses MUST include the same ID as the request they correspond to "
                "(except in error cases where the ID could not be read due a malformed "
                "request).",
            ),
        ),
    ),
    "answer_to_notification": Rule(
        "MUST NOT",
        "an answer to a notification",
        _by_era(
            (
                ("2024-11-05",),
                JSON_RPC,
                "The Server MUST NOT reply to a Notification, including those that are "
                "within a batch request.",
            ),
            (REVISIONS[1:], "basic/index.mdx", "The receiver MUST NOT send a response."),
        ),
    ),
    "no_newline": Rule(
        "statement",
        "a stdio line without its newline",
        _by_era(
            *((revisions, page, "Messages are delimited by newlines") for revisions, page in _STDIO)
        ),
    ),
    "batch_answered": Rule(
        "statement",
        "a batch the revision does not allow, answered member by member",
        _each(
            REVISIONS[2:],
            "docs/specification/2025-06-18/changelog.mdx",
            "Remove support for JSON-RPC batching",
        ),
    ),
    "revision": Rule(
        "statement",
        "a request whose _meta names another revision than its side's first",
        _each(("2026-07-28",), "basic/index.mdx", "Protocol version for a request"),
    ),
    "version": Rule(
        "MUST",
        "initialize answered with a protocolVersion that no revision of MCP has",
        _each(
            _HANDSHAKE,
            "basic/lifecycle.mdx",
            "If the server supports the requested protocol "
            "version, it MUST respond with the same version. Otherwise, the server MUST respond "
            "with another protocol version it supports.",
        ),
    ),
    "version_header": Rule(
        "MUST",
        "an HTTP request after the handshake without MCP-Protocol-Version",
        _each(
            ("2025-06-18", "2025-11-25"),
            "basic/transports.mdx",
            "If using HTTP, the client MUST include the "
            "MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server",
        ),
    ),
    "version_header.other": Rule(
        "SHOULD",
        "an MCP-Protocol-Version other than the revision negotiated",
        _each(
            ("2025-06-18", "2025-11-25"),
            "basic/transports.mdx",
            "The protocol version sent by the client SHOULD be the one negotiated during initialization.",
        ),
    ),
    "capability": Rule(
        "MUST",
        "a message that needs a capability the other side did not announce",
        _by_era(
            (
                _HANDSHAKE[2:],
                "basic/lifecycle.mdx",
                "Both parties MUST: ... Only use capabilities that were successfully negotiated",
            ),
            (
                ("2026-07-28",),
                "basic/index.mdx",
                "A server MUST NOT rely on capabilities the client has not declared.",
            ),
        ),
    ),
    "capability.early": Rule(
        "SHOULD",
        "a message that needs a capability the other side did not announce",
        _each(
            _HANDSHAKE[:2],
            "basic/lifecycle.mdx",
            "Both parties SHOULD: ... Only use capabilities that were successfully negotiated",
        ),
    ),
    "progress_token": Rule(
        "MUST",
        "a progress notification whose token no request of the other side gave",
        _by_era(
            (
                _HANDSHAKE,
                "basic/utilities/progress.mdx",
                "Progress notifications MUST only reference tokens that: Were provided in an "
                "active request",
            ),
            (
                ("2026-07-28",),
                "basic/patterns/progress.mdx",
                "Progress notifications MUST only reference tokens that: Were provided in an "
                "active request",
            ),
        ),
    ),
    "cancelled_answered": Rule(
        "SHOULD",
        "a request answered after its sender cancelled it",
        _by_era(
            (
                _HANDSHAKE,
                "basic/utilities/cancellation.mdx",
                "Receivers of cancellation notifications SHOULD: ... Not send a response for the cancelled request",
            ),
            (
                ("2026-07-28",),
                "basic/patterns/cancellation.mdx",
                "Servers receiving cancellation notifications SHOULD: ... Not send a response for the cancelled request",
            ),
        ),
    ),
    "unknown_tool": Rule(
        "statement",
        "a call of an unknown tool answered as a tool's failure (isError)",
        _by_era(
            (
                _HANDSHAKE,
                "server/tools.mdx",
                "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools",
            ),
            (
                ("2026-07-28",),
                "server/tools.mdx",
                "Protocol Errors indicate issues with the request structure itself "
                "that models are less likely to be able to fix: Unknown tool",
            ),
        ),
    ),
    "reserved_code.-32601": Rule(
        "statement",
        "-32601 for a method the server has",
        _each(
            REVISIONS,
            JSON_RPC,
            "-32601 Method not found The method does not exist / is not available.",
        ),
    ),
    "reserved_code.-32700": Rule(
        "statement",
        "-32700 for a request that was read",
        _each(REVISIONS, JSON_RPC, "-32700 Parse error Invalid JSON was received by the server."),
    ),
    "error_code.tools/call": Rule(
        "example",
        "tools/call failed with a code no spec defines",
        _each(
            REVISIONS,
            "server/tools.mdx",
            '"code": -32602, "message": "Unknown tool: invalid_tool_name"',
        ),
    ),
    "error_code.prompts/get": Rule(
        "SHOULD",
        "prompts/get failed with a code no spec defines",
        _each(
            REVISIONS,
            "server/prompts.mdx",
            "Servers SHOULD return standard JSON-RPC errors for common failure "
            "cases: Invalid prompt name: -32602 (Invalid params)",
        ),
    ),
    "error_code.logging/setLevel": Rule(
        "SHOULD",
        "logging/setLevel failed with a code no spec defines",
        _each(
            _HANDSHAKE,
            "server/utilities/logging.mdx",
            "Servers SHOULD return standard JSON-RPC errors for common "
            "failure cases: Invalid log level: -32602 (Invalid params)",
        ),
    ),
    "error_code.resources/read": Rule(
        "SHOULD",
        "a resource not found answered with another code than -32002",
        _each(_HANDSHAKE, "server/resources.mdx", _RESOURCES_SHOULD),
    ),
    "error_code.resources/read.2026": Rule(
        "MUST",
        "a resource not found answered with another code than -32602",
        _each(
            ("2026-07-28",),
            "server/resources.mdx",
            "If the requested resource does not exist, servers MUST return a "
            "JSON-RPC error with code -32602 (Invalid Params).",
        ),
    ),
    "error_code.cancelled": Rule(
        "statement",
        "-32800 (LSP's request cancelled) for a request never cancelled",
        _each(
            REVISIONS,
            JSON_RPC,
            "The error codes from and including -32768 to -32000 "
            "are reserved for pre-defined errors. Any code within this range, but not "
            "defined explicitly below is reserved for future use.",
        ),
    ),
    "result_shape": Rule(
        "statement",
        "a result that breaks the revision's schema.json",
        _each(
            REVISIONS,
            "index.mdx",
            "This specification defines the authoritative protocol requirements, based on "
            "the TypeScript schema in schema.ts.",
        ),
    ),
    "session_status": Rule(
        "MUST",
        "a request on a session that ended, answered otherwise than 404",
        _each(
            _HTTP_SESSIONS,
            "basic/transports.mdx",
            "The server MAY terminate the session at any time, after which "
            "it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
        ),
    ),
    "session_status.unknown": Rule(
        "statement",
        "a request on a session never handed out, answered with an error other than 404",
        _each(
            _HTTP_SESSIONS,
            "basic/transports.mdx",
            "The server MAY terminate the session at any time, after which "
            "it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
        ),
    ),
    "origin": Rule(
        "MUST",
        "an Origin of another site accepted",
        _by_era(
            (
                ("2025-03-26", "2025-06-18"),
                "basic/transports.mdx",
                "Servers MUST validate the Origin header on all "
                "incoming connections to prevent DNS rebinding attacks",
            ),
            (
                ("2025-11-25",),
                "basic/transports.mdx",
                "If the Origin header is present and invalid, servers MUST "
                "respond with HTTP 403 Forbidden.",
            ),
            (
                ("2026-07-28",),
                "basic/transports/streamable-http.mdx",
                "If the Origin header is present and invalid, servers MUST respond",
            ),
        ),
    ),
}


def _latest(rule):
    return max(rule.where)


def citation(name, revision):
    """``(revision cited, page, sentence)`` of rule ``name`` under ``revision`` (None: the
    course's rules, which cite :data:`FALLBACK`, or the latest revision stating the rule);
    None when ``revision`` is one whose pages do not state the rule."""
    rule = RULES[name]
    if isinstance(revision, str) and revision in REVISIONS:
        if revision not in rule.where:
            return None
        return (revision, *rule.where[revision])
    cited = FALLBACK if FALLBACK in rule.where else _latest(rule)
    return (cited, *rule.where[cited])


def address(revision, page):
    """Where a page is: ``docs/specification/<revision>/<page>``, or JSON-RPC's address."""
    return page if page.startswith(("http", "docs/")) else f"docs/specification/{revision}/{page}"


def settle(finding, revision):
    """``finding`` (a dict of the audit, whose ``rule`` names its rule, by default its
    ``problem``) with its ``keyword``, ``severity`` and ``cites`` (the page) and the sentence
    quoted at the end of its ``detail``; None when ``revision``'s pages do not state the rule."""
    name = finding.pop("rule", None) or finding["problem"]
    if name in TAP_NOTES:
        finding.update(severity="note", keyword=None)
        return finding
    revision = finding.pop("revision", revision)
    cited = citation(name, revision)
    if cited is None and f"{name}.early" in RULES:  # the same rule, with another keyword before
        name += ".early"
        cited = citation(name, revision)
    if cited is None:
        return None
    at, page, sentence = cited
    keyword = RULES[name].keyword
    where = address(at, page)
    if not isinstance(revision, str) and not page.startswith(("http", "docs/")):
        where += (
            ", the latest revision with a handshake"
            if at == FALLBACK
            else ", the latest revision that states it"
        )
    finding.update(severity=SEVERITY[keyword], keyword=keyword, cites=where)
    finding["detail"] = f'{finding["detail"]} ({where}: "{sentence}")'
    return finding


def table():
    """The rules as a Markdown table: rule, keyword, severity, what it finds, the revisions that
    state it, and the page and sentence of the latest of them."""
    rows = [
        "| rule | keyword | severity | finds | revisions | page (latest) | sentence |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rule in RULES.items():
        latest = _latest(rule)
        page, sentence = rule.where[latest]
        revisions = ", ".join(sorted(rule.where))
        rows.append(
            f"| `{name}` | {rule.keyword} | {SEVERITY[rule.keyword]} | {rule.summary} | {revisions} | "
            f"{address(latest, page)} | {sentence.replace('|', '/')} |"
        )
    for name, summary in TAP_NOTES.items():
        rows.append(f"| `{name}` | (the tap's own) | note | {summary} | every | | |")
    return "\n".join(rows) + "\n"

"""The audit's rules on error codes (``error_code``): an error answered with a code the
revision names for another case, such as -32602 for an unknown resource where
resources.mdx names -32002, or an unknown prompt answered otherwise than -32602. Each
finding names its rule of :mod:`.citations`, as :mod:`.rules`' do.
"""

import json

from mcp_lesson.tap.entries import show_id
from mcp_lesson.tap.judge import _short
from mcp_lesson.tap.rules import CANCELLED, NAMED_CODES, _latest_before


def error_code_rules(reading, scope_key, scope, flagged):
    """The findings on the codes of the server's errors to its client's requests
    (:data:`NAMED_CODES`): a code no spec defines where the method's page names one, -32800
    for a request never cancelled, and a resource not found answered with another code
    than its revision's. A request the client cancelled is owed nothing, so its error (the
    SDKs answer -32800, LSP's "request cancelled") is no failure of the method's."""
    found = []
    for place, slot in enumerate(scope.slots, 1):
        if (
            slot.direction != "from_server"
            or slot.kind != "response"
            or slot.key is None
            or slot.cut
            or place in flagged
            or slot.refusal
            or "error" not in slot.member
        ):
            continue
        asked = _latest_before(scope.requests.get(("to_server", slot.key), []), place)
        if asked is None or scope.slots[asked - 1].cut:
            continue
        request = scope.slots[asked - 1].member
        method = request.get("method")
        error = slot.member.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if reading._forgiven(scope_key, scope.slots[asked - 1]):
            continue  # cancelled by its client (or left by it): whatever the error, it is no answer owed
        revision = slot.revision
        if method == "resources/read":
            found += _resource_code(reading, slot, request, code, revision)
            continue
        named = NAMED_CODES.get(method)
        if named is None or (type(code) is int and -32768 <= code <= -32000 and code != CANCELLED):
            continue
        if code == CANCELLED:
            found.append(
                reading._problem(
                    slot.index,
                    "error_code",
                    f"the server answered {method} with "
                    f'error code {CANCELLED}, "request cancelled" in the SDKs (a code '
                    "of LSP's, which no MCP revision defines), though the client "
                    "never cancelled it",
                    id=slot.member.get("id"),
                    rule="error_code.cancelled",
                    revision=revision,
                )
            )
            continue
        expected, page, case = named
        found.append(
            reading._problem(
                slot.index,
                "error_code",
                f"the server answered {method} with error "
                f"code {show_id(code)}, which no spec defines; for {case} {page} names "
                f"{expected}",
                id=slot.member.get("id"),
                rule=f"error_code.{method}",
                revision=revision,
            )
        )
    return found


def _resource_code(reading, slot, request, code, revision):
    """A resource not found: -32002 up to 2025-11-25 (a SHOULD), -32602 in 2026-07-28 (a
    MUST). Read as not found: an error with the other revision's code for a well-formed
    request (one with a string ``uri``), or a code no spec defines."""
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    uri = params.get("uri")
    stateless = isinstance(revision, str) and revision >= "2026"
    expected, other = (-32602, -32002) if stateless else (-32002, -32602)
    if type(code) is not int or code == expected or (-32768 <= code <= -32000 and code != other):
        return []
    if code == other and not isinstance(uri, str):
        return []  # -32602 for a request without a uri is right
    which = (
        f"resources/read of {_short(json.dumps(uri), 80)}"
        if isinstance(uri, str)
        else "resources/read"
    )
    words = (
        "which no spec defines"
        if not -32768 <= code <= -32000
        else "invalid params"
        if code == -32602
        else "the code of earlier revisions for a resource not found"
    )
    if stateless:
        tell = (
            "for a resource that does not exist, 2026-07-28's server/resources.mdx asks for -32602"
        )
    else:
        tell = (
            "for a resource not found, server/resources.mdx names -32002 (if the resource exists and "
            "the request was at fault, -32602 is right)"
            if code == -32602
            else "for a resource not found, server/resources.mdx names -32002"
        )
    return [
        reading._problem(
            slot.index,
            "error_code",
            f"the server answered {which} with error code {show_id(code)}, {words}; {tell}",
            id=slot.member.get("id"),
            rule="error_code.resources/read" + (".2026" if stateless else ""),
            revision=revision,
        )
    ]

"""The TypeScript SDK as a second peer: its verdicts beside this package's.

``tools/ts_peer/verdicts.mjs`` runs ``@modelcontextprotocol/sdk``'s own zod
schemas (pinned to :data:`SDK_VERSION` by ``tools/ts_peer/package-lock.json``)
over messages, exactly as the SDK's stdio transport reads a line. This file
compares them with ``classify`` (default revision):

* on the shared case table, where every disagreement must be listed in
  :data:`EXPECTED_DISAGREEMENTS` (and every listed one must still disagree), so
  a behaviour change on either side shows up;
* on a few thousand messages mutated near every rule, where every disagreement
  must be explained by a chain of the known classes in :data:`CLASSES`: fixing
  the cause each class names, one after the other, makes the two agree.

Messages cross to Node as JSON text, as they would off the wire, so what
``JSON.parse`` does to them (2**80 rounded to a double, 1.0 read as 1) is part
of the TypeScript SDK's verdict.

The SDK is installed by :func:`install` (``npm ci`` with the committed lock
file) into the ignored ``tools/ts_peer/node_modules`` when it is missing or
stale. Without Node.js the tests are skipped with the reason, and fail when
``CI=true``.

Run as a script, it prints the verdict table as JSON for lesson 07::

    .venv/bin/python tests/peers/test_ts_peer.py --dump
"""

import base64
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from mcp_lesson import CASES, PARSE_ERROR, classify, classify_json
from mcp_lesson.exercises.cases import TEXT_CASES

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "tools" / "ts_peer"
SCRIPT = PEER / "verdicts.mjs"
MODULES = PEER / "node_modules"
STAMP = MODULES / ".mcp_lesson_installed"  # digest of the package files it was installed from
SDK_VERSION = "1.32.2"
DUMP_COMMAND = ".venv/bin/python tests/peers/test_ts_peer.py --dump"

ACCEPTED = ("request", "notification", "response")
MAX_SAFE = 2**53 - 1  # Number.MAX_SAFE_INTEGER


class PeerUnavailable(Exception):
    """Node.js or the pinned SDK cannot be had on this machine."""


# --- install and run the peer -------------------------------------------


def _package_digest():
    data = b"".join((PEER / name).read_bytes() for name in ("package.json", "package-lock.json"))
    return hashlib.sha256(data).hexdigest()


def install():
    """Make ``tools/ts_peer/node_modules`` match the lock file; raise PeerUnavailable if it can't.

    ``npm ci --ignore-scripts`` runs only when the folder is missing or was
    installed from other package files; a lock file keeps two test runs on
    one machine from installing at the same time.
    """
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        raise PeerUnavailable(
            f"{' and '.join(missing)} not found: the TypeScript SDK peer needs Node.js "
            "(apt-get install nodejs npm)"
        )
    digest = _package_digest()
    with open(PEER / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (STAMP.is_file() and STAMP.read_text() == digest):
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                cwd=PEER,
                capture_output=True,
                text=True,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
            if done.returncode != 0:
                head = (done.stderr or done.stdout).strip().splitlines()[:4]
                raise PeerUnavailable("npm ci failed in tools/ts_peer: " + " | ".join(head))
            STAMP.write_text(digest)
    found = versions()
    if found["sdk"] != SDK_VERSION:
        raise AssertionError(f"tools/ts_peer holds SDK {found['sdk']}, not {SDK_VERSION}")


def _node(args, stdin):
    done = subprocess.run(
        ["node", str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=PEER
    )
    if done.returncode != 0:
        raise RuntimeError(f"verdicts.mjs failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def versions():
    """``{"sdk": ..., "zod": ..., "node": ...}`` as the installed peer reports them."""
    return json.loads(_node(["--version"], ""))


def wire_text(message):
    """The JSON text a peer would send for ``message``: one ASCII line, no NaN."""
    return json.dumps(message, allow_nan=False, separators=(",", ":"))


def _run(lines, wire):
    if not lines:
        return []
    out = [
        json.loads(line)
        for line in _node(["--wire"] if wire else [], "\n".join(lines) + "\n").splitlines()
    ]
    assert len(out) == len(lines), "verdicts.mjs must give one verdict a line"
    return out


def ts_verdicts(messages):
    """The TypeScript SDK's verdict (a dict, see verdicts.mjs) on each parsed message."""
    return _run([wire_text(message) for message in messages], wire=False)


def ts_wire_verdicts(texts):
    """The same for raw text or bytes, read as the SDK's stdio transport reads one line."""
    raw = [t.encode("utf-8", "surrogatepass") if isinstance(t, str) else bytes(t) for t in texts]
    return _run([base64.b64encode(b).decode("ascii") for b in raw], wire=True)


# --- the known classes of disagreement -------------------------------------


def ours(message):
    """This package's kind for a parsed message (default revision)."""
    return classify(message)[0]


def ours_text(text):
    """This package's kind for raw text, with a parse error as ``"parse-error"``."""
    kind, code = classify_json(text)
    return "parse-error" if code == PARSE_ERROR else kind


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _numbers(message):
    """The places the TS schema wants a safe integer: ("id",) and ("error", "code")."""
    places = []
    if "id" in message:
        places.append(("id",))
    if isinstance(message.get("error"), dict) and "code" in message["error"]:
        places.append(("error", "code"))
    return places


def _get(message, place):
    return message[place[0]] if len(place) == 1 else message[place[0]][place[1]]


def _set(message, place, value):
    if len(place) == 1:
        return {**message, place[0]: value}
    return {**message, place[0]: {**message[place[0]], place[1]: value}}


def _fix_numbers(message, bad, fixed):
    for place in _numbers(message):
        if bad(_get(message, place)):
            message = _set(message, place, fixed(_get(message, place)))
    return message


def _unsafe(value):
    return _is_int(value) and abs(value) > MAX_SAFE


def _integral_float(value):
    return isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE


def _schema_members(message):
    """The top-level members the TS schema for this shape of message names."""
    if "method" in message:
        return {"jsonrpc", "id", "method", "params"}
    return {"jsonrpc", "id", "error" if "error" in message else "result"}


def _extra_members(message):
    return set(message) - _schema_members(message)


class DisagreementClass(NamedTuple):
    """A known reason for the TS SDK and ``classify`` to disagree on a message.

    ``applies(message, ours, ts)`` says whether the reason is present and the
    verdicts point the way it predicts; ``fix(message)`` removes that reason
    only, so that after every fix of its chain the two peers agree.
    """

    reason: str
    applies: Callable
    fix: Callable


def _ts_stricter(ours_kind, ts_kind):
    return ours_kind in ACCEPTED and ts_kind == "invalid"


def _ts_looser(ours_kind, ts_kind):
    return ours_kind == "invalid" and ts_kind in ACCEPTED


#: The classes of disagreement (the TypeScript SDK's schemas vs mcp_lesson.rules.classification), in the order they are tried.
CLASSES = {
    "unsafe-integer": DisagreementClass(
        "An id or error code beyond 2**53 - 1: JSON.parse rounds it to a double and "
        "zod's int() wants a safe integer, so TS refuses it; Python keeps every integer.",
        lambda m, o, t: _ts_stricter(o, t) and any(_unsafe(_get(m, p)) for p in _numbers(m)),
        lambda m: _fix_numbers(m, _unsafe, lambda v: 7),
    ),
    "integral-float": DisagreementClass(
        "An id or error code written 1.0 or -32600.0: JSON.parse makes it the number 1, "
        "an integer to JavaScript, so TS accepts it; the course calls any float invalid.",
        lambda m, o, t: _ts_looser(o, t) and any(_integral_float(_get(m, p)) for p in _numbers(m)),
        lambda m: _fix_numbers(m, _integral_float, int),
    ),
    "null-error-id": DisagreementClass(
        'An error response with "id": null: JSON-RPC 2.0 and the course allow it, '
        "no MCP schema does, and the TS schema's id is optional but never null.",
        lambda m, o, t: _ts_stricter(o, t) and "error" in m and "id" in m and m["id"] is None,
        lambda m: {**m, "id": 7},
    ),
    "missing-error-id": DisagreementClass(
        "An error response with no id: the 2025-11-25 schema made it optional, so TS "
        'accepts it; the course\'s default rules want the key ("id": null if unknown).',
        lambda m, o, t: _ts_looser(o, t) and "error" in m and "id" not in m,
        lambda m: {**m, "id": 7},
    ),
    "unknown-member": DisagreementClass(
        "A member its schema does not name (a stray result, a trace field): the TS "
        "schemas are .strict() and refuse it; the course ignores it.",
        lambda m, o, t: _ts_stricter(o, t) and bool(_extra_members(m)),
        lambda m: {k: v for k, v in m.items() if k not in _extra_members(m)},
    ),
}


def explain_all(messages, ts_kinds=None):
    """For each message where the peers disagree, the chain of classes that explains it.

    Returns ``{index: (class, ...)}``. A chain ends in ``"other"`` when no
    known class applies, or when fixing every class that applied still leaves
    the two disagreeing.
    """
    if ts_kinds is None:
        ts_kinds = [v["verdict"] for v in ts_verdicts(messages)]
    pending = {i: (m, t, ()) for i, (m, t) in enumerate(zip(messages, ts_kinds)) if ours(m) != t}
    chains = {}
    for _ in range(len(CLASSES) + 1):
        fixed = {}
        for i, (message, ts_kind, chain) in pending.items():
            name = next(
                (
                    n
                    for n, c in CLASSES.items()
                    if n not in chain and c.applies(message, ours(message), ts_kind)
                ),
                None,
            )
            if name is None:
                chains[i] = chain + ("other",)
            else:
                fixed[i] = (CLASSES[name].fix(message), chain + (name,))
        if not fixed:
            break
        again = [v["verdict"] for v in ts_verdicts([m for m, _ in fixed.values()])]
        pending = {}
        for (i, (message, chain)), ts_kind in zip(fixed.items(), again):
            if ours(message) == ts_kind:
                chains[i] = chain
            else:
                pending[i] = (message, ts_kind, chain)
    for i, (_, _, chain) in pending.items():
        chains[i] = chain + ("other",)
    return chains


#: Case name -> (the TS SDK's verdict, the class), for every case of CASES where
#: the TS SDK and classify (default revision) disagree.
EXPECTED_DISAGREEMENTS = {
    "huge integer id": ("invalid", "unsafe-integer"),
    "extra member ignored": ("invalid", "unknown-member"),
    "request with stray result": ("invalid", "unknown-member"),
    "error with id null": ("invalid", "null-error-id"),
    "request with id 1.0": ("request", "integral-float"),
    "error code 1.0": ("response", "integral-float"),
    "error without id": ("response", "missing-error-id"),
}

#: The wire-level classes, for texts read by the SDK's stdio transport.
TEXT_CLASSES = {
    "utf8-replaced": "The stdio transport decodes a line with bad UTF-8 bytes replaced "
    "(U+FFFD), not refused, so the line can still be a message.",
    "deep-nesting": "JSON.parse reads nesting far deeper than Python's parser does, so "
    "100,000 brackets are an (invalid) array there and a parse error here.",
}

#: Case name -> (the TS SDK's verdict, the class) for TEXT_CASES; a text that
#: parses on both sides may disagree for one of the message classes too.
EXPECTED_TEXT_DISAGREEMENTS = {
    "invalid UTF-8": ("notification", "utf8-replaced"),
    "deep nesting": ("invalid", "deep-nesting"),
    "an error response": ("invalid", "null-error-id"),
}


# --- messages mutated near every rule ---------------------------------------

#: Values put in place of every member: each sits on one side of some rule.
VALUES: tuple = (
    True,
    False,
    None,
    0,
    1,
    -1,
    1.0,
    -0.0,
    1.5,
    -32600.0,
    MAX_SAFE,
    MAX_SAFE + 1,
    2**70,
    -(2**70),
    "",
    "x",
    "2.0",
    "-32601",
    {},
    [],
    [1],
    {"code": -32600, "message": "x"},
    {"tools": []},
)
MEMBERS = ("jsonrpc", "id", "method", "params", "result", "error", "trace")
ERROR_MEMBERS = ("code", "message", "data", "extra")


def mutations():
    """Each object of CASES, with every member (and every error member) dropped or
    replaced by each of :data:`VALUES`, and each absent one added; deterministic,
    without duplicates (as JSON text)."""
    out, seen = [], set()

    def add(message):
        key = json.dumps(message, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(message)

    for case in CASES:
        message = case.message
        if not isinstance(message, dict):
            continue
        add(message)
        for key in MEMBERS:
            if key in message:
                add({k: v for k, v in message.items() if k != key})
            for value in VALUES:
                add({**message, key: value})
        error = message.get("error")
        if isinstance(error, dict):
            for key in ERROR_MEMBERS:
                if key in error:
                    add({**message, "error": {k: v for k, v in error.items() if k != key}})
                for value in VALUES:
                    add({**message, "error": {**error, key: value}})
    return out


# --- the tests --------------------------------------------------------------


@pytest.fixture(scope="session")
def peer():
    """The installed peer, or a skip (a failure when CI=true) saying why not."""
    try:
        install()
    except PeerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {exc}", pytrace=False)
        pytest.skip(str(exc))
    return versions()


@pytest.fixture(scope="session")
def case_verdicts(peer):
    return ts_verdicts([case.message for case in CASES])


@pytest.fixture(scope="session")
def mutated(peer):
    messages = mutations()
    kinds = [v["verdict"] for v in ts_verdicts(messages)]
    return messages, kinds, explain_all(messages, kinds)


def test_the_peer_is_the_pinned_sdk(peer):
    assert peer["sdk"] == SDK_VERSION
    lock = json.loads((PEER / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/@modelcontextprotocol/sdk"]["version"] == SDK_VERSION
    assert json.loads((PEER / "package.json").read_text())["dependencies"] == {
        "@modelcontextprotocol/sdk": SDK_VERSION
    }


def test_case_table_disagreements_are_exactly_the_known_ones(case_verdicts):
    found = {
        case.name: v["verdict"]
        for case, v in zip(CASES, case_verdicts)
        if ours(case.message) != v["verdict"]
    }
    expected = {name: ts for name, (ts, _) in EXPECTED_DISAGREEMENTS.items()}
    assert found == expected, (
        f"TS SDK {SDK_VERSION} vs classify changed: update EXPECTED_DISAGREEMENTS "
        "(and lesson 07's stored table) if that is intended"
    )


def test_each_case_table_disagreement_is_its_listed_class(case_verdicts):
    messages = [case.message for case in CASES]
    chains = explain_all(messages, [v["verdict"] for v in case_verdicts])
    got = {CASES[i].name: chain for i, chain in chains.items()}
    assert got == {name: (cls,) for name, (_, cls) in EXPECTED_DISAGREEMENTS.items()}


def test_text_disagreements_are_exactly_the_known_ones(peer):
    verdicts = ts_wire_verdicts([case.text for case in TEXT_CASES])
    found = {
        case.name: v["verdict"]
        for case, v in zip(TEXT_CASES, verdicts)
        if ours_text(case.text) != v["verdict"]
    }
    assert found == {name: ts for name, (ts, _) in EXPECTED_TEXT_DISAGREEMENTS.items()}
    classes = {cls for _, cls in EXPECTED_TEXT_DISAGREEMENTS.values()}
    assert set(TEXT_CLASSES) <= classes <= set(TEXT_CLASSES) | set(CLASSES)


def test_every_mutated_disagreement_is_a_known_class(mutated):
    messages, kinds, chains = mutated
    assert len(messages) > 5000
    unexplained = [
        (messages[i], ours(messages[i]), kinds[i])
        for i, chain in chains.items()
        if "other" in chain
    ]
    assert not unexplained, unexplained[:10]


def test_every_known_class_still_happens(mutated):
    # A class no mutated message needs any more is a behaviour change too.
    _, _, chains = mutated
    assert {name for chain in chains.values() for name in chain} == set(CLASSES)


KNOWN_TS_FACTS = [
    (
        "null id on an error response",
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
        "invalid",
    ),
    (
        "no id on an error response",
        {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}},
        "response",
    ),
    (
        "a request with a stray result",
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "result": {}},
        "invalid",
    ),
    ("an id of 2**70", {"jsonrpc": "2.0", "id": 2**70, "method": "ping"}, "invalid"),
    ("an id of 1.0", {"jsonrpc": "2.0", "id": 1.0, "method": "ping"}, "request"),
    ("params null", {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": None}, "invalid"),
    (
        "an extra member in the error object",
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x", "extra": 1}},
        "response",
    ),
]


@pytest.mark.parametrize(
    "message, verdict", [f[1:] for f in KNOWN_TS_FACTS], ids=[f[0] for f in KNOWN_TS_FACTS]
)
def test_spec_section_7_facts(peer, message, verdict):
    assert ts_verdicts([message])[0]["verdict"] == verdict


def test_the_two_sdks_contradict_each_other_on_the_error_id(peer):
    from mcp_lesson.peers.python_sdk import sdk_verdict

    null_id = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    no_id = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    ts_null, ts_none = (v["verdict"] for v in ts_verdicts([null_id, no_id]))
    assert (sdk_verdict(null_id), sdk_verdict(no_id)) == ("response", "invalid")
    assert (ts_null, ts_none) == ("invalid", "response")


def test_json_parse_rounding_is_what_the_ts_sdk_sees(peer):
    seen = [v["seen"] for v in ts_verdicts([{"id": 2**80}, {"id": 1.0}, {"id": 2**53 + 1}])]
    assert seen == ['{"id":1.2089258196146292e+24}', '{"id":1}', '{"id":9007199254740992}']


def test_hostile_input_gets_a_verdict(peer):
    texts = [
        "",
        "not json",
        "<script>alert(1)</script>",
        b"\x00\xff\xfe",
        '{"jsonrpc":"2.0","method":"' + "x" * 1_000_000 + '"}',
        "[" * 100_000,
        '{"jsonrpc":"2.0","method":"a"}\r',
        '{"__proto__":{"x":1},"jsonrpc":"2.0","method":"a"}',
    ]
    verdicts = [v["verdict"] for v in ts_wire_verdicts(texts)]
    assert verdicts == [
        "parse-error",
        "parse-error",
        "parse-error",
        "parse-error",
        "notification",
        "parse-error",
        "notification",
        "invalid",
    ]


def test_the_script_refuses_an_unknown_argument(peer):
    done = subprocess.run(
        ["node", str(SCRIPT), "--bogus"], capture_output=True, text=True, input="", cwd=PEER
    )
    assert done.returncode == 2 and "unknown argument --bogus" in done.stderr


# --- the verdict table for lesson 07 ------------------------------------------


def dump(case_v=None, mutated=None):
    """The TS SDK's verdicts on the case tables, and the mutation summary, as a dict.
    ``case_v`` and ``mutated`` are the fixtures of the same names, when the
    tests have them already (the SDK then judges each message once per run)."""
    install()
    if case_v is None:
        case_v = ts_verdicts([case.message for case in CASES])
    text_v = ts_wire_verdicts([case.text for case in TEXT_CASES])
    if mutated is None:
        messages = mutations()
        kinds = [v["verdict"] for v in ts_verdicts(messages)]
        mutated = messages, kinds, explain_all(messages, kinds)
    messages, kinds, chains = mutated
    by_chain = {}
    for chain in chains.values():
        by_chain[" + ".join(chain)] = by_chain.get(" + ".join(chain), 0) + 1

    def row(name, ours_kind, verdict, table):
        entry = {
            "name": name,
            "ours": ours_kind,
            "ts": verdict["verdict"],
            "ts_schema": verdict["schema"],
            "ts_issue": verdict["issue"],
            "ts_seen": verdict["seen"],
        }
        if name in table:
            entry["class"] = table[name][1]
        return entry

    return {
        "command": DUMP_COMMAND,
        "peer": "tools/ts_peer/verdicts.mjs, with the SDK pinned by tools/ts_peer/package-lock.json",
        "versions": versions(),
        "classes": {name: c.reason for name, c in CLASSES.items()} | TEXT_CLASSES,
        "cases": [
            row(c.name, ours(c.message), v, EXPECTED_DISAGREEMENTS) for c, v in zip(CASES, case_v)
        ],
        "text_cases": [
            row(c.name, ours_text(c.text), v, EXPECTED_TEXT_DISAGREEMENTS)
            for c, v in zip(TEXT_CASES, text_v)
        ],
        "mutations": {
            "messages": len(messages),
            "disagreements": len(chains),
            "by_class": dict(sorted(by_chain.items())),
        },
    }


# --- the stored verdicts (lesson 07 reads them; tests/peers/test_peers.py checks them) ---------


def _stable(dump):
    """A dump without what depends on the Node.js version (its version, its JSON error texts)."""
    dump = json.loads(json.dumps(dump))
    dump["versions"].pop("node", None)
    for row in dump["cases"] + dump["text_cases"]:
        if row["ts"] == "parse-error":
            row.pop("ts_issue", None)
    return dump


def test_the_stored_ts_verdicts_are_what_the_ts_peer_makes_now(case_verdicts, mutated):
    """Made from the verdicts the other tests of this file use: the SDK runs once."""
    from mcp_lesson.peers.python_sdk import TS_DATA, ts_data

    assert _stable(ts_data()) == _stable(dump(case_verdicts, mutated)), (
        f"remake it: {DUMP_COMMAND} > mcp_lesson/data/{TS_DATA}"
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--dump"]:
        sys.exit(f"usage: {DUMP_COMMAND}")
    try:
        table = dump()
    except PeerUnavailable as exc:
        sys.exit(str(exc))
    json.dump(table, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


# --- the TypeScript SDK's client, talking to lesson 11's server (the course's second) --------------

OWN_SERVER = [sys.executable, "-m", "mcp_lesson.server.own"]
WANTED = {"server": "my-mcp", "tools": ["add", "count"], "2 + 40": "42", "multiply": "error -32602"}


def ts_client(*args):
    """What the TypeScript SDK's client got (mcp_lesson.course.your_own_server.ts_client, as lesson 11 runs it)."""
    from mcp_lesson.course.your_own_server import ts_client as run

    return run(*args, timeout=120)


def test_the_ts_sdk_s_client_over_stdio_through_the_tap(peer, tmp_path):
    """The client starts the tap as its server, and the tap the course's server with no SDK;
    the recording is clean by lesson 10's audit and by the tap's own."""
    from mcp_lesson import audit
    from mcp_lesson.course.live_traffic import read_recording
    from mcp_lesson.tap import audit as tap_audit

    recording = tmp_path / "ts.jsonl"
    from mcp_lesson.course.live_traffic import tap_command

    got = ts_client("stdio", *tap_command(recording, *OWN_SERVER))
    assert got == WANTED
    talk = read_recording(recording)
    assert audit(talk) == [] and tap_audit(talk) == []


def test_the_ts_sdk_s_client_over_http(peer):
    from mcp_lesson.server.running import HttpServer

    with HttpServer([*OWN_SERVER, "--http"]) as server:
        assert ts_client("http", server.url) == WANTED

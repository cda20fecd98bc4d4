"""Side-by-side benchmarks of the course's speed targets (docs/maintaining.md, "Speed"), in one run.

    make bench                  # or: .venv/bin/python benchmarks/bench.py

1. classify() against the official MCP SDK's message validation
   (mcp_types.jsonrpc.jsonrpc_message_adapter.validate_python) on the same
   mixed corpus: every message of the shared case table. A failed SDK
   validation counts as a verdict, as it does for a real server.
2. classify_json() on a 1 MB message against json.loads() of the same text.

The machines are shared and noisy, so the two sides of each comparison run
interleaved, several rounds each, and the report gives ratios of the medians.
This is a report, not a test: it never fails on a number.
"""

import argparse
import gc
import json
import statistics
import sys
import time

from mcp_lesson import CASES, classify, classify_json, create_request
from mcp_lesson.peers.python_sdk import sdk_model

TARGET_CLASSIFY = 10.0  # classify must be at least this many times faster
TARGET_JSON = 1.2  # classify_json may take at most this many times json.loads


def _timed(loop):
    """Seconds taken by ``loop()``, with the garbage collector paused as timeit does."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        loop()
        return time.perf_counter() - start
    finally:
        gc.enable()


def per_second(fn, corpus, repeat):
    def loop():
        for _ in range(repeat):
            for message in corpus:
                fn(message)

    return repeat * len(corpus) / _timed(loop)


def seconds(fn, arg, repeat):
    def loop():
        for _ in range(repeat):
            fn(arg)

    return _timed(loop) / repeat


def one_megabyte_message():
    """A tools/call request about 1 MB long, with text, numbers and nesting."""
    rows = [
        {"id": i, "name": f"item-{i}", "score": i * 0.5, "tags": ["a", "b"], "ok": i % 2 == 0}
        for i in range(12_000)
    ]
    message = create_request("tools/call", {"name": "store", "arguments": {"rows": rows}}, 1)
    text = json.dumps(message)
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=400, help="corpus passes per round")
    args = parser.parse_args(argv)

    corpus = [case.message for case in CASES]
    sdk = sdk_model  # the SDK's own validation, as lesson 07 and the tests call it
    ours, theirs = [], []
    for round_ in range(args.rounds):  # alternate who goes first
        pair = [(ours, classify, args.repeat), (theirs, sdk, max(1, args.repeat // 10))]
        for results, fn, repeat in pair[:: 1 if round_ % 2 else -1]:
            results.append(per_second(fn, corpus, repeat))
    ratio = statistics.median(ours) / statistics.median(theirs)

    # For the record: the valid messages alone (the SDK is fastest on those).
    valid = [m for m in corpus if classify(m)[0] != "invalid"]
    ours_valid, theirs_valid = [], []
    for round_ in range(args.rounds):
        pair = [(ours_valid, classify, args.repeat), (theirs_valid, sdk, max(1, args.repeat // 10))]
        for results, fn, repeat in pair[:: 1 if round_ % 2 else -1]:
            results.append(per_second(fn, valid, repeat))
    valid_ratio = statistics.median(ours_valid) / statistics.median(theirs_valid)

    text = one_megabyte_message()
    assert classify_json(text) == ("request", None)
    ours_json, loads = [], []
    for round_ in range(args.rounds):
        pair = [(ours_json, classify_json), (loads, json.loads)]
        for results, fn in pair[:: 1 if round_ % 2 else -1]:
            results.append(seconds(fn, text, 5))
    json_ratio = statistics.median(ours_json) / statistics.median(loads)

    import importlib.metadata as md

    print(
        f"python {sys.version.split()[0]}, mcp {md.version('mcp')}, "
        f"{args.rounds} interleaved rounds, medians"
    )
    print(f"corpus: {len(corpus)} messages of the case table")
    print(f"  classify      {statistics.median(ours):>12,.0f} messages/s")
    print(f"  SDK validate  {statistics.median(theirs):>12,.0f} messages/s")
    print(
        f"  ratio         {ratio:>12.1f}x  (target >= {TARGET_CLASSIFY:.0f}x: "
        f"{'met' if ratio >= TARGET_CLASSIFY else 'NOT met'})"
    )
    print(f"  valid messages only ({len(valid)}): {valid_ratio:.1f}x")
    print(f"1 MB message: {len(text):,} characters")
    print(f"  classify_json {statistics.median(ours_json) * 1e3:>9.2f} ms")
    print(f"  json.loads    {statistics.median(loads) * 1e3:>9.2f} ms")
    print(
        f"  ratio         {json_ratio:>9.3f}x  (target <= {TARGET_JSON}x: "
        f"{'met' if json_ratio <= TARGET_JSON else 'NOT met'})"
    )


if __name__ == "__main__":
    main()

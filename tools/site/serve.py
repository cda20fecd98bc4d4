"""Serve the built site (build/site/) on the loopback address only: ``make site-serve``.

Any static file server will do for JupyterLite; this one exists to be sure of
three things: it listens on 127.0.0.1 and nowhere else, it sends ``.mjs`` and
``.wasm`` with the types a browser insists on for module workers and
WebAssembly (some systems' type tables lack them), and it answers every
request, even while the page fetches many files at once (one thread each).

Usage: python tools/site/serve.py [--port 8867] [--dir build/site]
"""

import argparse
import functools
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"

TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".ipynb": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
}


class Handler(SimpleHTTPRequestHandler):
    """Static files with the right types, and one short log line per failed request."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def log_message(self, format, *args):
        pass

    def log_error(self, format, *args):
        sys.stderr.write(f"[site-serve] {self.path}: {format % args}\n")


def make_server(folder, port=0):
    """A server for ``folder`` on 127.0.0.1:``port`` (0: any free port), not yet serving."""
    handler = functools.partial(Handler, directory=str(folder))
    return ThreadingHTTPServer((HOST, port), handler)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8867)
    parser.add_argument("--dir", type=Path, default=ROOT / "build" / "site")
    args = parser.parse_args(argv)
    if not (args.dir / "index.html").exists():
        sys.exit(f"{args.dir} holds no site: run `make site` first")
    server = make_server(args.dir, args.port)
    port = server.server_address[1]
    print(
        f"The course in the browser: open http://{HOST}:{port}/lab/index.html"
        f"?path=learner/00_start_here.ipynb",
        flush=True,
    )
    print(f"(serving {args.dir} on {HOST}:{port} only; Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

"""The course's JupyterLite site: ``build`` makes it (``make site``), ``serve`` serves it on loopback."""

"""The package's version, in one place: the programs (server, client, tap) name
themselves with it without importing the package's root."""

__version__ = "0.2.0"

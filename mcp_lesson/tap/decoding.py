"""An answer's ``Content-Encoding`` (gzip, deflate, br) undone as it arrives, a piece at a
time, so that the HTTP tap judges what the server meant and never holds more than a piece
of an answer that unpacks to gigabytes."""

from mcp_lesson.tap.judge import _short


class Decoder:
    """The decoded bytes of an answer's ``Content-Encoding``, fed as it arrives; ``failed``
    says why decoding stopped (an unknown coding, bytes that are not what it says)."""

    PIECE = (
        1 << 20
    )  # decoded a piece at a time: a small answer that unpacks to gigabytes is read in steps

    def __init__(self, coding):
        import zlib

        self.coding, self.failed, self._zlib = coding, None, zlib
        name = coding.strip().lower()
        self._feed = None
        if name in ("gzip", "x-gzip"):
            self._feed = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif name == "deflate":
            self._feed = zlib.decompressobj()
        elif name == "br":
            try:
                import brotli

                self._feed = brotli.Decompressor()
            except ImportError:
                self.failed = "br, which the tap reads only with the brotli package installed"
        if self._feed is None and self.failed is None:
            self.failed = f"{_short(coding, 40)}, a coding the tap cannot decode"

    def feed(self, chunk):
        """The decoded pieces of ``chunk`` (none once decoding has failed)."""
        if self.failed is not None:
            return
        try:
            if not hasattr(self._feed, "unconsumed_tail"):  # brotli: no step limit
                yield self._feed.process(chunk)
                return
            piece = self._feed.decompress(chunk, self.PIECE)
            while True:
                yield piece
                if not self._feed.unconsumed_tail:
                    return
                piece = self._feed.decompress(self._feed.unconsumed_tail, self.PIECE)
        except Exception as exc:  # zlib.error, brotli.error: the bytes are not what they say
            self.failed = f"{self.coding} that does not decode ({exc})"

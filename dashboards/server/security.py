"""What every response of ``vedette-serve`` carries and what its log keeps out (issue 28, hardening).

* Headers on every page, script and websocket answer: a Content-Security-Policy that lets a page load its
  own scripts, styles, images and websocket only, and be framed by pages of this server only
  (``frame-ancestors 'self'``, with ``X-Frame-Options: SAMEORIGIN`` for older browsers): another site can no
  longer show a page in a frame and steer a click onto "Do it". Bokeh and Panel need inline scripts and
  ``eval`` (the document's models, a ``CustomJS``) and ``blob:`` modules (our ESM components), so those
  are allowed, from this server only. ``X-Content-Type-Options: nosniff`` and a ``Referrer-Policy`` that
  sends no address (with its game key) to another site.
* The access log: a game's key travels in its link (``/play?game=…&key=…``); every line Tornado logs has
  ``key=…`` masked, so the keys are not in the server's log.

Tornado's ``RequestHandler.set_default_headers`` is the documented place for headers every response of a
handler gets; it is wrapped once, for every handler of the process (Bokeh's and Panel's included).
"""
from __future__ import annotations

import logging

import tornado.web

from dashboards.server.access import mask_keys

__all__ = ["CSP", "HEADERS", "install", "MaskKeys"]

CSP = ("default-src 'self'; "
       "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; "
       "style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; "
       "font-src 'self' data:; "
       "connect-src 'self' ws: wss:; "
       "worker-src 'self' blob:; "
       "object-src 'none'; base-uri 'self'; form-action 'self'; "
       "frame-ancestors 'self'")

HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "SAMEORIGIN", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin"}


class MaskKeys(logging.Filter):
    """Masks ``key=…`` in a log record's message (its arguments, as Tornado passes the request line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(mask_keys(a) if isinstance(a, str) else a for a in
                                (record.args if isinstance(record.args, tuple) else (record.args,)))
        if isinstance(record.msg, str) and "key=" in record.msg:
            record.msg = mask_keys(record.msg)
        return True


def install() -> None:
    """Add the headers to every response and mask the keys in the access and server logs (once)."""
    original = tornado.web.RequestHandler.set_default_headers
    if not getattr(original, "_vedette_headers", False):
        def set_default_headers(self) -> None:
            original(self)
            for name, value in HEADERS.items():
                self.set_header(name, value)

        setattr(set_default_headers, "_vedette_headers", True)
        setattr(tornado.web.RequestHandler, "set_default_headers", set_default_headers)
    for name in ("tornado.access", "tornado.application", "tornado.general", "bokeh.server", "bokeh"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, MaskKeys) for f in logger.filters):
            logger.addFilter(MaskKeys())

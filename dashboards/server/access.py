"""The keys of saved games that this browser holds, kept in an HttpOnly cookie.

A saved game has secret keys (see :mod:`dashboards.server.storage`): the owner's and one per side. A page that
creates a game, or that is opened with a ``?key=`` link, adds the key to this browser's list; the index
and the play and map pages show only the games whose keys the browser holds, plus public ones.

Reading: the cookie comes with the request that opens the page (``pn.state.cookies``). Writing (issue 28,
hardening): the cookie is ``HttpOnly``, so no page script can read it, and only the server sets it. A page
that learns new keys gets a *grant* from the server over its websocket: the new keys (that game's only),
signed with this server's secret and valid for a few minutes. The page's script posts the grant to
``/vedette-keys`` (:class:`KeysHandler`), which checks the signature and answers with the cookie: the
keys it already held plus the granted ones. The cookie holds keys only (``token_urlsafe`` characters joined
by dots), never a game's content.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import time

import panel as pn
import tornado.web

__all__ = ["COOKIE", "MAX_KEYS", "BrowserKeys", "parse_keys", "game_link", "browser_keys", "url_arg", "grant",
           "granted_keys", "KeysHandler", "KEYS_ROUTE", "mask_keys"]

COOKIE = "vedette_keys"
#: keys kept per browser (22 characters each: about 3.4 kB, under the 4 kB a cookie may hold)
MAX_KEYS = 150
_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
#: where a page posts a grant to have its keys added to the cookie
KEYS_ROUTE = "/vedette-keys"
#: how long a grant may be used (seconds)
GRANT_S = 300
#: the server's secret for grants: made once in the main process, before ``--num-procs`` forks its workers
#: (so a grant made in one worker is good in another); ``VEDETTE_KEYS_SECRET`` fixes it for tests
_SECRET = (os.environ.get("VEDETTE_KEYS_SECRET") or "").encode() or secrets.token_bytes(32)
_MASK = re.compile(r"(key=)[A-Za-z0-9_-]+")


def mask_keys(text: str) -> str:
    """``text`` with every ``key=…`` value masked (what goes into the server's access log)."""
    return _MASK.sub(r"\1…", text)


def _sign(payload: bytes) -> str:
    return hmac.new(_SECRET, payload, hashlib.sha256).hexdigest()[:32]


def grant(keys) -> str:
    """A signed grant of ``keys`` for the cookie (see the module's docstring)."""
    keys = [k for k in keys if isinstance(k, str) and _KEY.match(k)]
    payload = base64.urlsafe_b64encode(json.dumps({"k": keys, "e": int(time.time()) + GRANT_S}).encode()).decode()
    return f"{payload}.{_sign(payload.encode())}"


def granted_keys(token: str) -> list[str]:
    """The keys of a grant that is ours and not expired; [] otherwise."""
    if not isinstance(token, str) or len(token) > 8000 or "." not in token:
        return []
    payload, _, sig = token.rpartition(".")
    if not hmac.compare_digest(sig, _sign(payload.encode())):
        return []
    try:
        data = json.loads(base64.urlsafe_b64decode(payload.encode()))
    except (ValueError, TypeError):
        return []
    if not isinstance(data, dict) or not isinstance(data.get("e"), int) or data["e"] < time.time():
        return []
    return [k for k in data.get("k") or () if isinstance(k, str) and _KEY.match(k)]


def parse_keys(raw: str | None) -> list[str]:
    """The well-formed keys of a cookie value (anything else is dropped), oldest first, without repeats."""
    if not raw or not isinstance(raw, str):
        return []
    keys = [k for k in raw[: 80 * MAX_KEYS].split(".") if _KEY.match(k)]
    return list(dict.fromkeys(keys))[-MAX_KEYS:]


def browser_keys() -> list[str]:
    """The keys in the cookie of the request that opened this session (none outside a server)."""
    return parse_keys(pn.state.cookies.get(COOKIE, "") if pn.state.curdoc else "")


def url_arg(name: str, default: str = "", limit: int = 80) -> str:
    """One argument of the page's URL, as text cut to ``limit`` characters ('' outside a server)."""
    args = pn.state.session_args if pn.state.curdoc else {}
    raw = (args.get(name) or [b""])[0] if args else b""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    except UnicodeDecodeError:
        return default
    return text[:limit] or default


def game_link(route: str, game_id: str, key: str | None, mode: str = "") -> str:
    """The URL of a game on its page (``/play?game=…&key=…``); HTML-escape it where it goes into HTML."""
    out = f"{route}?game={game_id}"
    if key:
        out += f"&key={key}"
    if mode:
        out += f"&mode={mode}"
    return out


#: the page's side of a grant: post it, and show the open game's link in the address bar
_BRIDGE = ("const v = cb_obj.value || ''; const i = v.indexOf('|');"
           " const g = i < 0 ? v : v.slice(0, i), url = i < 0 ? '' : v.slice(i + 1);"
           " if (g) { fetch('" + KEYS_ROUTE + "', {method: 'POST', body: g, credentials: 'same-origin'}); }"
           " if (url && url !== window.location.pathname + window.location.search)"
           " { window.history.replaceState(null, '', url); }")


class BrowserKeys:
    """One session's view of the browser's keys; :meth:`add` stores new keys in the browser's cookie.

    One hidden widget carries both what the browser is told to keep (a grant of the keys it learned in this
    session, for the cookie) and the address its bar shows (the open game's link): ``grant|url`` (grants
    and paths hold no ``|``). A page's script never sees the cookie, nor the keys of other games."""

    def __init__(self, raw: str | None = None):
        self.keys: list[str] = browser_keys() if raw is None else parse_keys(raw)
        self._url = ""
        self._grant = ""
        self._bridge = None
        self._sinks: list = []

    @property
    def bridge(self) -> pn.widgets.TextInput:
        """The hidden widget that carries :attr:`value` to the browser (made when first asked for: a page
        whose own component carries the value, the play page's head, makes none)."""
        if self._bridge is None:
            self._bridge = pn.widgets.TextInput(value=self._value(), visible=False, margin=0,
                                                css_classes=["vedette-keys-bridge"])
            self._bridge.jscallback(value=_BRIDGE)
            self.on_change(lambda v: setattr(self._bridge, "value", v))
        return self._bridge

    @property
    def value(self) -> str:
        """What the browser is told: ``grant|url``."""
        return self._value()

    def on_change(self, fn) -> None:
        """Call ``fn(value)`` each time :attr:`value` changes."""
        self._sinks.append(fn)

    def _changed(self) -> None:
        v = self._value()
        for fn in self._sinks:
            fn(v)

    def _value(self) -> str:
        return self._grant + (f"|{self._url}" if self._url else "")

    def show_url(self, link: str) -> None:
        """Put ``link`` (a path on this server) in the browser's address bar without reloading."""
        if link.startswith("/") and not link.startswith("//") and "|" not in link:
            self._url = link
            self._changed()

    def panel(self):
        return self.bridge

    def add(self, *keys: str) -> None:
        new = [k for k in keys if k and _KEY.match(k)]
        if not new:
            return
        self.keys = list(dict.fromkeys([k for k in self.keys if k not in new] + new))[-MAX_KEYS:]
        self._grant = grant(new)
        self._changed()

    def __contains__(self, key: str) -> bool:
        return key in self.keys


class KeysHandler(tornado.web.RequestHandler):
    """``POST /vedette-keys`` with a grant as the body: the browser's keys cookie (HttpOnly, SameSite Strict)
    with the granted keys added. A grant that is not this server's, or expired: 403, nothing set. The keys
    never appear in a URL or a log line here."""

    def check_xsrf_cookie(self) -> None:      # a grant is signed: it needs no second token
        return None

    def post(self) -> None:
        body = self.request.body[:8000].decode("ascii", errors="replace")
        new = granted_keys(body.strip())
        if not new:
            self.set_status(403)
            self.finish()
            return
        held = parse_keys(self.get_cookie(COOKIE, ""))
        keys = list(dict.fromkeys([k for k in held if k not in new] + new))[-MAX_KEYS:]
        self.set_cookie(COOKIE, ".".join(keys), path="/", expires_days=365, httponly=True, samesite="Strict")
        self.set_status(204)
        self.finish()

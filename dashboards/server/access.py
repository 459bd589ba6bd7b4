"""The keys of saved games that this browser holds, kept in a cookie.

A saved game has secret keys (see :mod:`dashboards.server.storage`): the owner's and one per side. A page that
creates a game, or that is opened with a ``?key=`` link, adds the key to this browser's list; the index
and the play and map pages show only the games whose keys the browser holds, plus public ones.

Reading: the cookie comes with the request that opens the page (``pn.state.cookies``). Writing: a hidden
text widget whose value the server sets; a ``jscallback`` on it writes ``document.cookie`` in the browser.
The cookie holds keys only (``token_urlsafe`` characters joined by dots), never a game's content.
"""
from __future__ import annotations

import re

import panel as pn

__all__ = ["COOKIE", "MAX_KEYS", "BrowserKeys", "parse_keys", "game_link", "browser_keys", "url_arg"]

COOKIE = "vedette_keys"
#: keys kept per browser (22 characters each: about 3.4 kB, under the 4 kB a cookie may hold)
MAX_KEYS = 150
_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


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


_BRIDGE = ("const v = cb_obj.value || ''; const i = v.indexOf('|');"
           " const keys = i < 0 ? v : v.slice(0, i), url = i < 0 ? '' : v.slice(i + 1);"
           " document.cookie = '" + COOKIE + "=' + keys + '; path=/; max-age=31536000; SameSite=Strict';"
           " if (url && url !== window.location.pathname + window.location.search)"
           " { window.history.replaceState(null, '', url); }")


class BrowserKeys:
    """One session's view of the browser's keys; :meth:`add` stores new keys in the browser's cookie.

    One hidden widget carries both what the browser is told to keep (the keys, for the cookie) and the
    address its bar shows (the open game's link): ``keys|url`` (keys and paths hold no ``|``)."""

    def __init__(self, raw: str | None = None):
        self.keys: list[str] = browser_keys() if raw is None else parse_keys(raw)
        self._url = ""
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
        """What the browser is told: ``keys|url``."""
        return self._value()

    def on_change(self, fn) -> None:
        """Call ``fn(value)`` each time :attr:`value` changes."""
        self._sinks.append(fn)

    def _changed(self) -> None:
        v = self._value()
        for fn in self._sinks:
            fn(v)

    def _value(self) -> str:
        return ".".join(self.keys) + (f"|{self._url}" if self._url else "")

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
        self._changed()

    def __contains__(self, key: str) -> bool:
        return key in self.keys

"""Upload widget for a user's own data file (tables, records): a bad file shows an error, changes nothing.

The file is handed to the engine's own loader (so the same validation and messages as the CLI's
``--tables FILE``); the page's state changes only when the loader accepts the file.

Served (issue 28, hardening): the browser checks the file's size before sending it (:class:`UploadBox`):
a file over :data:`MAX_UPLOAD_BYTES` (the engine's bound on any file it reads, 1 MiB) is not sent, and the
page says it is too large (a 15 MB file used to drop the page's connection). A file that is sent is read
off the server's event loop, in a calculation worker (:class:`~dashboards.server.background.Background`),
so a large YAML file does not hold up other visitors' pages.
"""
from __future__ import annotations

import base64
import binascii
import html
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Callable

import panel as pn
import param
from panel.custom import JSComponent

from engine.core.data import MAX_FILE_BYTES
from engine.core.errors import VedetteError

__all__ = ["FileLoader", "UploadBox", "load_bytes", "MAX_UPLOAD_BYTES"]

#: the largest file a page accepts (the engine reads no larger file: engine.core.data.MAX_FILE_BYTES)
MAX_UPLOAD_BYTES = MAX_FILE_BYTES


def _size(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 100_000 else f"{n / 1024:.0f} kB"


_UPLOAD_ESM = r"""
export function render({ model, el }) {
  const box = document.createElement("span"); box.className = "upload";
  const input = document.createElement("input"); input.type = "file"; input.accept = model.accept || "";
  box.appendChild(input); el.appendChild(box);
  let n = 0;
  input.addEventListener("change", () => {
    const f = input.files && input.files[0];
    if (!f) return;
    n += 1;
    const k = n;
    if (f.size > model.max_bytes) {          // not sent: the server says it is too large
      model.send_msg({n: k, name: f.name, size: f.size, data: ""}); input.value = ""; return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const bytes = new Uint8Array(reader.result);
      let bin = "";
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      model.send_msg({n: k, name: f.name, size: f.size, data: btoa(bin)});
      input.value = "";
    };
    reader.readAsArrayBuffer(f);
  });
}
"""


class UploadBox(JSComponent):
    """A file chooser that checks the file's size in the browser: a file over ``max_bytes`` is not sent
    (only its name and size are, so the page can say it is too large); one within is sent as base64.
    ``on_file(name, size, data or None)`` is called with each."""

    accept = param.String(default="")
    max_bytes = param.Integer(default=MAX_UPLOAD_BYTES)

    _esm = _UPLOAD_ESM
    _stylesheets = [":host {display:block} input {font-size:13px}"]

    def __init__(self, **params):
        super().__init__(**params)
        self.on_file = None

    def _handle_msg(self, msg) -> None:
        if not isinstance(msg, dict) or self.on_file is None:
            return
        name = str(msg.get("name") or "upload.yaml")[:120]
        try:
            size = int(msg.get("size") or 0)
        except (TypeError, ValueError):
            size = 0
        data = msg.get("data") or ""
        if size > self.max_bytes or not data:
            self.on_file(name, size, None)
            return
        if len(data) > 4 * self.max_bytes // 3 + 8:
            self.on_file(name, len(data) * 3 // 4, None)
            return
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            self.on_file(name, size, b"")
            return
        self.on_file(name, len(raw), raw)


def load_bytes(data: bytes, filename: str, loader: Callable[[Path], Any]) -> Any:
    """Write ``data`` to a private temporary file named like the upload and run ``loader`` on it.

    The server's temporary path never reaches the user: an error naming it names the upload instead."""
    name = Path(filename or "upload.yaml").name
    with tempfile.TemporaryDirectory(prefix="vedette-upload-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            obj = loader(path)
        except (VedetteError, ValueError, OSError) as exc:
            text = str(exc)
            if tmp not in text:
                raise
            clean = text.replace(str(path), name).replace(tmp + "/", "").replace(tmp, "")
            try:
                new = type(exc)(clean) if not isinstance(exc, VedetteError) else _same_error(exc, clean)
            except Exception:  # noqa: BLE001 - an exception type that cannot be rebuilt from text
                new = VedetteError(clean)
            raise new from None
        # a loaded object that remembers its file (n20 tables name it in later errors) names the upload
        if getattr(obj, "file", None) == str(path):
            import dataclasses
            try:
                obj = dataclasses.replace(obj, file=name) if dataclasses.is_dataclass(obj) else obj
                if getattr(obj, "file", None) != name:
                    obj.file = name
            except (AttributeError, TypeError, ValueError):
                pass
        return obj


def _same_error(exc: VedetteError, text: str) -> VedetteError:
    """A copy of ``exc`` whose message is ``text`` (a RuleViolation keeps its rule)."""
    new = VedetteError.__new__(type(exc))
    new.__dict__.update(exc.__dict__)
    new.args = (text,)
    return new


class FileLoader(param.Parameterized):
    """A FileInput, a status line and a reset button around a loader function.

    ``on_loaded(obj, filename)`` is called with what the loader returned; ``on_reset()`` when the user
    goes back to the shipped file. Errors (any :class:`VedetteError`, or a file that is not text) are
    shown in ``status`` and nothing else happens.
    """

    error = param.String(default="")
    loaded_name = param.String(default="")

    def __init__(self, loader: Callable[[Path], Any], on_loaded: Callable[[Any, str], None],
                 on_reset: Callable[[], None] | None = None, accept: str = ".yaml,.yml,.json",
                 label: str = "Load your own tables file", **params):
        super().__init__(**params)
        self._loader, self._on_loaded, self._on_reset = loader, on_loaded, on_reset
        self.file_input = UploadBox(accept=accept, css_classes=["upload-box"], sizing_mode="stretch_width")
        self.file_input.on_file = self._file_arrived
        self._runner = None
        self._reset_button: pn.widgets.Button | None = None
        self._status_pane: pn.pane.HTML | None = None
        self._panels: list[pn.Column] = []
        self.label = label
        self.param.watch(self._show_status, ["error", "loaded_name"])

    @property
    def reset_button(self) -> pn.widgets.Button:
        """The button back to the shipped file: made the first time a file is tried (issue 12.3: a page that
        is only read never builds it; before a file is loaded it would only show disabled)."""
        if self._reset_button is None:
            self._reset_button = pn.widgets.Button(name="Use the shipped file", button_type="light",
                                                   disabled=not self.loaded_name)
            self._reset_button.on_click(self._reset)
        return self._reset_button

    @property
    def runner(self):
        """Where a file is read: off the event loop, in a worker (made on the first file)."""
        if self._runner is None:
            from dashboards.server.background import Background
            self._runner = Background()
            for col in self._panels:
                col.insert(2, self._runner.panel())
        return self._runner

    def _file_arrived(self, name: str, size: int, data: bytes | None) -> None:
        """A file chosen in the browser: too large (not sent), or read off the event loop."""
        if data is None:
            self.error = (f"{name}: this file is too large ({_size(size)}); a file of at most "
                          f"{_size(MAX_UPLOAD_BYTES)} is read (nothing was sent, nothing changed)")
            return
        self.runner.start(partial(load_bytes, data, name, self._loader),
                          lambda obj: self._accept(obj, name), lambda exc: self._refuse(name, exc),
                          label=f"reading {name}…")

    def accept_upload(self, data: bytes, filename: str) -> bool:
        """Try a file here and now; returns True if it was loaded (view-model tests and notebooks)."""
        if len(data) > MAX_UPLOAD_BYTES:
            self._file_arrived(filename, len(data), None)
            return False
        try:
            obj = load_bytes(data, filename, self._loader)
        except (VedetteError, UnicodeDecodeError, ValueError, OSError) as exc:
            self._refuse(filename, exc)
            return False
        self._accept(obj, filename)
        return True

    def _refuse(self, filename: str, exc: Exception) -> None:
        if isinstance(exc, VedetteError):
            self.error = str(exc)
        else:
            self.error = f"{filename}: cannot read this file ({str(exc)[:160]})"

    def _accept(self, obj, filename: str) -> None:
        self._on_loaded(obj, filename)
        self.error, self.loaded_name = "", filename
        self.reset_button.disabled = False

    def _reset(self, _=None) -> None:
        if self._on_reset:
            self._on_reset()
        self.error, self.loaded_name = "", ""
        self.reset_button.disabled = True

    def status_html(self) -> str:
        """The status line as HTML: the error (nothing changed), the file in use, or nothing."""
        if self.error:
            return (f"<div class='upload-error alert alert-danger'><b>The file was not loaded</b> (nothing "
                    f"changed): {html.escape(self.error)}</div>")
        if self.loaded_name:
            return (f"<div class='upload-ok alert alert-success'>Using your file "
                    f"<b>{html.escape(self.loaded_name)}</b>.</div>")
        return ""

    def status(self):
        return pn.pane.HTML(self.status_html(), sizing_mode="stretch_width", margin=0)

    def _show_status(self, *_) -> None:
        """After a file is tried: the status line and the reset button join every panel shown (once)."""
        if self._status_pane is None:
            self._status_pane = pn.pane.HTML("", sizing_mode="stretch_width", margin=(0, 5),
                                             stylesheets=[STATUS_CSS])
            for col in self._panels:
                col.extend([self.reset_button, self._status_pane])
        self._status_pane.object = self.status_html()

    def panel(self):
        """The label and the file input; the reset button and the status line are added when a file is
        first tried (issue 12.3: three models for a page that is only read, not twelve)."""
        col = pn.Column(pn.pane.HTML(f"<b>{html.escape(self.label)}</b>", margin=(0, 5)), self.file_input,
                        sizing_mode="stretch_width")
        if self._runner is not None:
            col.append(self._runner.panel())
        if self._status_pane is not None:
            col.extend([self.reset_button, self._status_pane])
        self._panels.append(col)
        return col


#: the status line's colours (the alert classes of Panel's Alert pane, without its stylesheets)
STATUS_CSS = (".alert{padding:6px 10px;border-radius:4px;border:1px solid}"
              ".alert-danger{color:#842029;background:#f8d7da;border-color:#f5c2c7}"
              ".alert-success{color:#0f5132;background:#d1e7dd;border-color:#badbcc}")

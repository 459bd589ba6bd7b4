"""Upload widget for a user's own data file (tables, records): a bad file shows an error, changes nothing.

The file is handed to the engine's own loader (so the same validation and messages as the CLI's
``--tables FILE``); the page's state changes only when the loader accepts the file.
"""
from __future__ import annotations

import html
import tempfile
from pathlib import Path
from typing import Any, Callable

import panel as pn
import param

from engine.core.errors import VedetteError

__all__ = ["FileLoader", "load_bytes"]


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
        self.file_input = pn.widgets.FileInput(accept=accept, multiple=False, name=label, css_classes=["upload"])
        self._reset_button: pn.widgets.Button | None = None
        self._status_pane: pn.pane.HTML | None = None
        self._panels: list[pn.Column] = []
        self.file_input.param.watch(self._uploaded, "value")
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

    def _uploaded(self, event) -> None:
        if event.new is None:
            return
        self.accept_upload(event.new, self.file_input.filename or "upload.yaml")

    def accept_upload(self, data: bytes, filename: str) -> bool:
        """Try a file; returns True if it was loaded (also used by view-model tests)."""
        try:
            obj = load_bytes(data, filename, self._loader)
        except VedetteError as exc:
            self.error = str(exc)
            return False
        except (UnicodeDecodeError, ValueError, OSError) as exc:
            self.error = f"{filename}: cannot read this file ({exc})"
            return False
        self._on_loaded(obj, filename)
        self.error, self.loaded_name = "", filename
        self.reset_button.disabled = False
        return True

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
        if self._status_pane is not None:
            col.extend([self.reset_button, self._status_pane])
        self._panels.append(col)
        return col


#: the status line's colours (the alert classes of Panel's Alert pane, without its stylesheets)
STATUS_CSS = (".alert{padding:6px 10px;border-radius:4px;border:1px solid}"
              ".alert-danger{color:#842029;background:#f8d7da;border-color:#f5c2c7}"
              ".alert-success{color:#0f5132;background:#d1e7dd;border-color:#badbcc}")

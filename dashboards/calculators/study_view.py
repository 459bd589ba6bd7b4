"""Scenario balance: a study of many bot games run in the background, with its plots (issue 16).

:class:`StudyModel` (Panel-free, ``param``) holds the study's settings and its rows; :meth:`StudyModel.run`
plays the games on a Dask LocalCluster of one worker process, the path and settings of ``vedette GAME
simulate`` (so the server's event loop and its other sessions are not held up by the bots' work), a task
at a time, so progress can be shown and the run cancelled. :class:`StudyView`
is the page component (a ``pn.viewable.Viewer``, usable inline in Jupyter too): settings, a progress bar,
outcome bars with their 95 % intervals, metric curves with bands, a histogram of the last turn and the
per-game table, each game with a link that replays it.
"""
from __future__ import annotations

import atexit
import html
import json
import threading
import urllib.parse

import panel as pn
import param

from engine.core.errors import VedetteError
from engine.core.game import factory_of, system_of, systems
from engine.core.simulate import Study, _play_batch, batch_games, local_cluster, submit_study, summarise

from dashboards.server.background import step_aside

__all__ = ["StudyModel", "StudyView", "MAX_BROWSER_GAMES", "replay_link"]

#: the most games one browser request may start (the CLI and Dask have no such bound)
MAX_BROWSER_GAMES = 2000

_CLIENT = None
_CLIENT_LOCK = threading.Lock()


def _client():
    """The page's Dask client, on one LocalCluster shared by every session and made on first use: the
    same path as ``vedette GAME simulate`` (:func:`engine.core.simulate.local_cluster`, so the same quiet
    Dask settings and logs, and :func:`~engine.core.simulate.submit_study`, so the same tasks, retried when
    a worker dies). One worker process: studies queue rather than compete for the 2 cores. A study is the
    longest work a browser can start, so its worker gives way to everything else from its start, and again
    if the nanny starts it anew (:func:`~dashboards.server.background.step_aside`: lowest priority, one
    CPU), as a long request of the worker pool does once it has run 0.3 s: the other sessions stay
    responsive (issue 12.3)."""
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None:
            from distributed import Client

            from engine.core.study_plugin import AtWorkerStart
            cluster = local_cluster(1)
            client = Client(cluster, set_as_default=False)
            client.register_plugin(AtWorkerStart(step_aside), name="vedette-step-aside")
            _CLIENT = client
        return _CLIENT


def _close_client() -> None:
    global _CLIENT
    with _CLIENT_LOCK:
        client, _CLIENT = _CLIENT, None
    if client is not None:
        cluster = client.cluster
        client.close()
        if cluster is not None:
            cluster.close()


atexit.register(_close_client)


def replay_link(study: Study, row: dict) -> str:
    """The play page's replay view of one study game: the bots' game is played again from its seed."""
    q = {"system": study.system, "mode": "replay", "scenario": study.scenario or "", "seed": str(row["seed"]),
         "bots": ",".join(study.bots), "options": ",".join(study.options)}
    return "/play?" + urllib.parse.urlencode(q)


class StudyModel(param.Parameterized):
    system = param.Selector(objects=["n20"], default="n20")
    scenario = param.Selector(objects=[""], default="")
    options = param.ListSelector(default=[], objects=[])
    bot_a = param.Selector(objects=["greedy"], default="greedy")
    bot_b = param.Selector(objects=["greedy"], default="greedy")
    games = param.Integer(default=50, bounds=(1, MAX_BROWSER_GAMES))
    seed = param.Integer(default=1, bounds=(0, 2 ** 62))
    done = param.Integer(default=0)
    running = param.Boolean(default=False)
    message = param.String(default="")
    finished = param.Event()

    def __init__(self, **params):
        names = systems()
        self.param.system.objects = names      # class-level choices: every registered system
        want = params.pop("system", None)
        super().__init__(**params)
        self.param.system.objects = names
        self.system = want if want in names else ("n20" if "n20" in names else names[0])
        self.rows: list[dict] = []
        self.study: Study | None = None
        self._futures: list = []
        self._sync_choices()

    @param.depends("system", watch=True)
    def _sync_choices(self):
        rules = system_of(self.system)
        scen = list(rules.scenarios())
        self.param.scenario.objects = scen
        self.scenario = rules.default_scenario if rules.default_scenario in scen else scen[0]
        self.param.options.objects = list(rules.options())
        self.options = []
        bots = list(rules.bots())
        self.param.bot_a.objects = bots
        self.param.bot_b.objects = bots
        best = "greedy" if "greedy" in bots else bots[0]
        self.bot_a = self.bot_b = best

    def make_study(self) -> Study:
        return Study(self.system, self.scenario, tuple(self.options), (self.bot_a, self.bot_b), int(self.games),
                     int(self.seed)).validate()

    def run(self, executor=None) -> None:
        """Start the study in the background: on the page's Dask cluster (:func:`_client`) by default, or
        on ``executor`` (a Dask client, or any ``concurrent.futures`` executor: tests, notebooks). The games
        go out in :func:`~engine.core.simulate.batch_games` tasks either way, so the rows are the same.
        Returns at once: the cluster is made (the first time, seconds) and the games handed to it in a
        thread of their own, not on the server's event loop.

        Each task's rows are taken once, when it first ends, and its result is then released from the
        cluster: a worker that dies later has nothing of it to recompute, and a game is never counted twice
        (a task whose worker dies first is rerun by Dask, ``retries=3``)."""
        if self.running:
            raise VedetteError("a study is already running on this page: wait for it or cancel it")
        study = self.make_study()
        self.study, self.rows, self.done, self.message = study, [], 0, ""
        self._pending_done = 0
        self._futures = []
        self._over = threading.Event()
        self._cancelled = False
        self.running = True
        lock = threading.Lock()
        run_id = object()
        self._run_id = run_id
        ended: set[int] = set()
        have: set[int] = set()

        def one_done(fut):
            with lock:
                if self._run_id is not run_id or fut.cancelled() or id(fut) in ended:
                    return
                ended.add(id(fut))
                exc = fut.exception()
                if exc is not None:
                    self.message = f"a game failed: {str(exc)[:160]}"
                else:
                    for row in fut.result():
                        if row["game"] not in have:
                            have.add(row["game"])
                            self.rows.append(row)
                    release = getattr(fut, "release", None)      # a Dask future: free its result
                    if release is not None:
                        release()
                self._pending_done = len(self.rows)
                if len(ended) == len(self._futures):
                    self._finish()

        def submit():
            if self._run_id is not run_id:                        # cancelled before it started
                return
            try:
                ex = executor if executor is not None else _client()
                todo = list(range(study.games))
                if hasattr(ex, "scheduler_info"):               # a Dask client: the CLI's own path
                    futures = submit_study(ex, study, todo)
                else:
                    futures = [ex.submit(_play_batch, study, b, factory_of(study.system)) for b in batch_games(todo, 1)]
            except Exception as exc:                              # no cluster could be started
                with lock:
                    if self._run_id is not run_id:                # cancelled meanwhile: its message stands
                        return
                    self.message = f"the study could not start: {str(exc)[:160]}"
                    self._finish()
                return
            with lock:
                self._futures = futures
                if self._cancelled:
                    for f in futures:
                        f.cancel()
                    return
            for f in futures:
                f.add_done_callback(one_done)

        threading.Thread(target=submit, name="vedette-study-submit", daemon=True).start()

    _over = None
    _cancelled = False
    _run_id = None

    _pending_done = 0

    def poll(self) -> None:
        """Bring the progress shown up to date (called on the page's event loop)."""
        if self.done != self._pending_done:
            self.done = self._pending_done
        if not self.running and self._finished_flag:
            self._finished_flag = False
            self.finished = True

    _finished_flag = False

    def _finish(self):
        self.rows.sort(key=lambda r: r["game"])
        self.running = False
        self._finished_flag = True
        self._over.set()

    def cancel(self) -> None:
        self._cancelled = True
        self._run_id = None          # a batch that ends now is not added to the rows shown
        for f in list(self._futures):
            f.cancel()
        self.rows.sort(key=lambda r: r["game"])
        self.running = False
        self.message = f"cancelled after {len(self.rows)} games; the summary covers those"
        self._finished_flag = True
        if self._over is not None:
            self._over.set()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the study is over: every task ended, or cancelled (tests and notebooks)."""
        if self._over is not None:
            self._over.wait(timeout)
        self.poll()

    def summary(self) -> dict | None:
        if not self.rows:
            return None
        return summarise(self.rows, self.study)


# ------------------------------------------------------------------------------------------------
# The view (Panel imported here only)
# ------------------------------------------------------------------------------------------------
def _plots(summary: dict):
    import holoviews as hv
    hv.extension("bokeh", logo=False)
    out = []
    rows = [(f"{o['winner']} {o['level']}".strip(), o["rate"], o["rate"] - o["ci95"][0], o["ci95"][1] - o["rate"])
            for o in summary["outcomes"]]
    bars = hv.Bars([(r[0], r[1]) for r in rows], "outcome", "rate")
    errs = hv.ErrorBars([(r[0], r[1], r[2], r[3]) for r in rows], "outcome", ["rate", "low", "high"])
    out.append((bars * errs).opts(hv.opts.Bars(title="Outcomes (95% Wilson interval)", responsive=True, height=260,
                                               ylim=(0, 1), tools=["hover"])))
    curves = []
    keys = sorted({k for ms in summary["metrics_by_turn"].values() for k in ms})
    for k in keys:
        pts = [(int(t), ms[k]["mean"], ms[k]["low"], ms[k]["high"]) for t, ms in summary["metrics_by_turn"].items()
               if k in ms]
        pts.sort()
        if not pts:
            continue
        curves.append(hv.Spread([(t, m, m - lo, hi - m) for t, m, lo, hi in pts], "turn", ["value", "neg", "pos"],
                                label=k).opts(alpha=0.25))
        curves.append(hv.Curve([(t, m) for t, m, _, _ in pts], "turn", "value", label=k))
    if curves:
        out.append(hv.Overlay(curves).opts(title="Metrics by turn (mean, 95% band of the mean)", responsive=True,
                                           height=280, legend_position="right"))
    hist = summary["last_turn"]["histogram"]
    out.append(hv.Bars([(str(t), c) for t, c in hist.items()], "last turn", "games").opts(
        title="When the games ended", responsive=True, height=220))
    return out


def _table(model: StudyModel, limit: int = 200) -> str:
    head = "<tr><th>game</th><th>winner</th><th>level</th><th>reason</th><th>last turn</th><th></th></tr>"
    body = []
    for r in model.rows[:limit]:
        link = html.escape(replay_link(model.study, r), quote=True)
        body.append(f"<tr class='study-row'><td>{r['game']}</td><td>{html.escape(str(r['winner']))}</td>"
                    f"<td>{html.escape(r['level'])}</td><td>{html.escape(r['reason'][:80])}</td>"
                    f"<td>{r['last_turn']}</td><td><a href='{link}' target='_blank'>replay</a></td></tr>")
    more = f"<p>… {len(model.rows) - limit} more games in the download</p>" if len(model.rows) > limit else ""
    return (f"<table class='study-table' style='border-collapse:collapse;width:100%'><thead>{head}</thead>"
            f"<tbody>{''.join(body)}</tbody></table>{more}")


def _summary_text(s: dict) -> str:
    parts = [f"<b>{s['games']} games.</b>"]
    for w, v in s["winners"].items():
        parts.append(f"{html.escape(w)}: {v['count']} ({v['rate']:.1%}, 95% interval "
                     f"{v['ci95'][0]:.1%}–{v['ci95'][1]:.1%})")
    lt = s["last_turn"]
    parts.append(f"mean last turn {lt['mean']:.1f} (95% interval of the mean {lt['low']:.1f}–{lt['high']:.1f})")
    return "<p class='study-summary'>" + "; ".join(parts) + "</p>"


class StudyView(pn.viewable.Viewer):
    """The balance page's component: settings, run/cancel, progress, plots and the per-game table."""

    def __init__(self, model: StudyModel | None = None, **params):
        super().__init__(**params)
        self.model = model or StudyModel()
        m = self.model
        w = pn.widgets
        self.settings = pn.Column(
            w.Select.from_param(m.param.system, name="game system", width=300),
            w.Select.from_param(m.param.scenario, name="scenario", width=300),
            w.MultiChoice.from_param(m.param.options, name="optional rules and variants", width=300),
            w.Select.from_param(m.param.bot_a, name=f"bot for the first side", width=300),
            w.Select.from_param(m.param.bot_b, name=f"bot for the second side", width=300),
            w.IntInput.from_param(m.param.games, name=f"games (1 to {MAX_BROWSER_GAMES})", width=300,
                                  css_classes=["study-games"]),
            w.IntInput.from_param(m.param.seed, name="seed", width=300, css_classes=["study-seed"]))
        self.run_b = pn.widgets.Button(name="Run the study", button_type="primary", css_classes=["run-study"])
        self.cancel_b = pn.widgets.Button(name="cancel", button_type="warning", visible=False,
                                          css_classes=["cancel-study"])
        self.progress = pn.indicators.Progress(value=0, max=max(1, m.games), visible=False,
                                               sizing_mode="stretch_width")
        self.status = pn.pane.HTML("<span data-state='idle'></span>", css_classes=["study-status"],
                                   sizing_mode="stretch_width")
        self.results = pn.Column(sizing_mode="stretch_width", css_classes=["study-results"])
        self.download = pn.widgets.FileDownload(label="download the rows (JSON)", filename="study.json",
                                                callback=self._rows_file, visible=False)
        self.run_b.on_click(self._run)
        self.cancel_b.on_click(lambda _: m.cancel())
        m.param.watch(self._progress, "done")
        m.param.watch(lambda _: self._show(), "finished")
        self._cb = None

    def _rows_file(self):
        import io
        return io.StringIO(json.dumps({"study": self.model.study.to_json(), "rows": self.model.rows}, indent=1))

    def _run(self, _=None):
        m = self.model
        try:
            m.run()
        except VedetteError as exc:
            self.status.object = f"<span class='refusal' data-state='refused'>{html.escape(str(exc)[:200])}</span>"
            return
        self.progress.max, self.progress.value, self.progress.visible = m.games, 0, True
        self.cancel_b.visible, self.run_b.disabled = True, True
        self.status.object = f"<span data-state='running'>playing {m.games} games in the background…</span>"
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            self._cb = pn.state.add_periodic_callback(m.poll, period=300)
        else:
            m.wait()

    def _progress(self, event):
        self.progress.value = min(event.new, self.progress.max)
        self.status.object = (f"<span data-state='running'>{event.new} of {self.model.games} games "
                              f"played…</span>")

    def _show(self):
        m = self.model
        if self._cb is not None:
            self._cb.stop()
            self._cb = None
        self.cancel_b.visible, self.run_b.disabled, self.progress.visible = False, False, False
        s = m.summary()
        if s is None:
            self.status.object = f"<span data-state='done'>{html.escape(m.message or 'no games finished')}</span>"
            self.results[:] = []
            return
        note = f" {html.escape(m.message)}" if m.message else ""
        self.results[:] = [pn.pane.HTML(_summary_text(s), sizing_mode="stretch_width"),
                           *[pn.pane.HoloViews(p, sizing_mode="stretch_width") for p in _plots(s)],
                           pn.pane.HTML(_table(m), sizing_mode="stretch_width",
                                        stylesheets=["table.study-table td, table.study-table th {padding:2px 6px;"
                                                     "border-bottom:1px solid #ddd;text-align:left}"])]
        self.download.visible = True
        self.status.object = f"<span data-state='done'>done.{note}</span>"

    def __panel__(self):
        return pn.Row(pn.Column(self.settings, self.run_b, self.cancel_b, width=340),
                      pn.Column(self.progress, self.status, self.results, self.download,
                                sizing_mode="stretch_width"), sizing_mode="stretch_width")

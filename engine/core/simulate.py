"""Scenario studies: many bot games on Dask, summarised with honest intervals.

Exact enumeration cannot answer whole-game questions ("who wins Fuentes de Oñoro, and how often?"), so
this is where sampling belongs. A :class:`Study` names a system, scenario, options, two bots, a number of
games and a seed; game ``i`` is played with :func:`game_seed` ``(seed, i)``, so the rows are the same
whatever the number of workers. Games run on a ``dask.distributed`` cluster (a LocalCluster on this
machine by default, any cluster by address), or in this process with ``workers=0``.

Each game gives one row: its seed, the winner, victory level and reason, the last turn, and the system's
metrics (Morale, losses per side) at the end and at the start of each turn, with the fights each side
started (``attacks.<side>``: its actions that the dice decide) at the end. :func:`summarise` counts
outcomes with 95 % Wilson intervals; :func:`compare` gives the difference in a side's win rate between
two studies with Newcombe's interval.
"""
from __future__ import annotations

import hashlib
import json
import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import VedetteError
from .game import MAX_ACTIONS, GameRules, factory_of, play_game, system_of
from .sampling import wilson_interval

__all__ = ["Study", "game_seed", "play_one", "run_study", "summarise", "compare", "write_parquet",
           "read_parquet", "MAX_GAMES", "StudyInterrupted", "batch_games", "local_cluster",
           "LOCAL_DASK_CONFIG", "submit_study", "probe_scheduler", "SCHEDULER_WAIT_S"]

#: the most games one study may ask for (a bound on what a browser or a typo can start)
MAX_GAMES = 1_000_000

#: one game's row: its seed, winner, level, reason, last turn and metrics (see :func:`play_one`)
Row = dict[str, Any]

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster
    from tqdm import tqdm


@dataclass(frozen=True)
class Study:
    system: str
    scenario: str | None = None
    options: tuple[str, ...] = ()
    bots: tuple[str, ...] = ("greedy", "greedy")    # two: checked by validate
    games: int = 100
    seed: int = 0
    max_actions: int = MAX_ACTIONS
    #: a module to import first on every worker (a system that is not shipped with Vedette)
    plugin: str | None = None

    def validate(self) -> "Study":
        """Check names and sizes before any game is played (one-line errors)."""
        if isinstance(self.games, bool) or not isinstance(self.games, int) or not 1 <= self.games <= MAX_GAMES:
            raise VedetteError(f"--games: expected a number of games from 1 to {MAX_GAMES}, got {self.games!r}")
        _import_plugin(self.plugin)
        rules = system_of(self.system)
        scenario = self.scenario or rules.default_scenario
        if scenario not in rules.scenarios():
            raise VedetteError(f"--scenario: unknown scenario {str(scenario)[:40]!r}; one of {', '.join(rules.scenarios())}")
        known = rules.options()
        for o in self.options:
            if o not in known:
                raise VedetteError(f"--options: unknown option {o[:40]!r}; one of {', '.join(known) or '(none)'}")
        if len(self.bots) != 2:
            raise VedetteError(f"--bots: expected two bots ({' and '.join(rules.sides)}), got {len(self.bots)}")
        for b in self.bots:
            if b not in rules.bots():
                raise VedetteError(f"--bots: unknown bot {b[:30]!r}; one of {', '.join(rules.bots())}")
        # the scenario and options must set up (e.g. a variant that does not belong to the scenario)
        rules.new_game(scenario, self.options, 0)
        return Study(self.system, scenario, tuple(self.options), tuple(self.bots), self.games, self.seed,
                     self.max_actions, self.plugin)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _import_plugin(name: str | None) -> None:
    if name is None:
        return
    import importlib
    import re
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name):
        raise VedetteError(f"plugin: {name[:40]!r} is not a module name")
    importlib.import_module(name)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a study seeded ``seed`` (independent of workers and order)."""
    h = hashlib.blake2b(f"vedette-study:{int(seed)}:{int(index)}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 1


def play_one(study: Study, index: int, factory: Callable[[], GameRules[Any, Any]] | None = None) -> Row:
    """Play game ``index`` of ``study`` and return its row (runs on a Dask worker). ``factory``: what makes
    the system's rules (its class, sent by reference: the worker imports that system alone); by default
    the registered one."""
    _import_plugin(study.plugin)
    rules = (factory or factory_of(study.system))()
    gseed = game_seed(study.seed, index)
    by_turn: dict[int, dict[str, float]] = {}

    def watch(state: Any, n: int) -> None:
        t = rules.position(state).turn
        if t not in by_turn:
            by_turn[t] = rules.metrics(state)

    # the fights each side started: actions the system's is_attack names as decided by dice (n20: a
    # battle resolved, 9.0, or a countercharge, 8.2; LoB and TBF: fire and assaults; BC: its combats)
    attacks = {_side_name(side): 0 for side in rules.sides}

    def moved(side: str, action: Any) -> None:
        if rules.is_attack(action):
            attacks[_side_name(side)] += 1

    first = rules.new_game(study.scenario, study.options, gseed)
    by_turn[rules.position(first).turn] = rules.metrics(first)
    final, _ = play_game(rules, study.bots, study.scenario, study.options, gseed,
                         max_actions=study.max_actions, record=False, on_action=watch, on_move=moved)
    oc = rules.outcome(final)
    pos = rules.position(final)
    metrics = dict(rules.metrics(final))
    metrics.update({f"attacks.{side}": float(n) for side, n in attacks.items()})
    return {"game": index, "seed": gseed, "winner": (oc.winner if oc else None) or ("draw" if oc else "unfinished"),
            "level": oc.level if oc else "", "reason": oc.reason if oc else "no result within the action limit",
            "last_turn": pos.turn, "metrics": metrics,
            "metrics_by_turn": {str(t): m for t, m in sorted(by_turn.items())}}


def _side_name(side: object) -> str:
    """A side as the metrics name it (an enum side by its value: ``morale.french``)."""
    return str(getattr(side, "value", side))


class StudyInterrupted(VedetteError):
    """Ctrl-C during a study: ``rows`` holds the games finished so far."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows
        super().__init__(f"stopped after {len(rows)} finished game(s)")


def _progress(total: int, enabled: bool) -> tqdm | None:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True, mininterval=0.5)


def _rates(wins: Counter[str], n: int) -> str:
    return " ".join(f"{k}={v / n:.0%}" for k, v in sorted(wins.items())) if n else ""


def run_study(study: Study, workers: int | None = None, scheduler: str | None = None, progress: bool = False,
              on_row: Callable[[Row], None] | None = None, indexes: Iterable[int] | None = None) -> list[Row]:
    """Play every game of ``study`` and return the rows sorted by game index.

    ``workers=0`` plays in this process; otherwise a Dask ``LocalCluster`` with ``workers`` processes
    (default: one per core) or the cluster at ``scheduler``. A worker that dies has its games rerun by
    Dask, so none is lost or counted twice. Ctrl-C raises :class:`StudyInterrupted` with the finished rows.
    """
    study = study.validate()
    todo = list(range(study.games)) if indexes is None else list(indexes)
    rows: dict[int, Row] = {}
    bar = _progress(len(todo), progress)
    wins: Counter[str] = Counter()

    def got(row: Row) -> None:
        if row["game"] in rows:
            return
        rows[row["game"]] = row
        wins[row["winner"]] += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(_rates(wins, len(rows)), refresh=False)
        if on_row is not None:
            on_row(row)

    try:
        if workers == 0 and scheduler is None:
            for i in todo:
                got(play_one(study, i))
        else:
            _run_dask(study, todo, workers, scheduler, got)
    except KeyboardInterrupt:
        raise StudyInterrupted([rows[k] for k in sorted(rows)]) from None
    finally:
        if bar is not None:
            bar.close()
    return [rows[k] for k in sorted(rows)]


#: seconds to wait for a scheduler to accept a connection and to greet it (a Dask scheduler writes its
#: handshake as soon as it accepts; a web server or anything else says nothing and would be waited on)
SCHEDULER_WAIT_S = 5.0


def probe_scheduler(address: str, wait: float | None = None) -> None:
    """Refuse, within ``wait`` seconds, a ``--scheduler`` that is not a Dask scheduler's TCP address: no
    ``host:port``, nothing listening, or a peer that does not greet first (one line each). Addresses of
    other transports (``tls://``, ``ucx://``...) are left to Dask's own connect, bounded by its timeout."""
    import socket
    wait = SCHEDULER_WAIT_S if wait is None else wait
    text = str(address).strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme != "tcp":
        return
    host, colon, port_text = rest.rstrip("/").rpartition(":")
    if not colon or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise VedetteError(f"--scheduler: expected a scheduler address such as tcp://HOST:8786, got {text[:60]!r}")
    host = host.strip("[]") or "127.0.0.1"
    try:
        with socket.create_connection((host, int(port_text)), timeout=wait) as sock:
            sock.settimeout(wait)
            greeting = sock.recv(1)
    except socket.timeout:
        raise VedetteError(f"--scheduler: {text[:60]!r} accepted but said nothing within {wait:g} s: not a Dask "
                           "scheduler (a web server?)") from None
    except OSError as exc:
        raise VedetteError(f"--scheduler: cannot reach a Dask scheduler at {text[:60]!r} "
                           f"({exc.strerror or type(exc).__name__})") from None
    if not greeting:
        raise VedetteError(f"--scheduler: {text[:60]!r} closed the connection: not a Dask scheduler")


def _run_dask(study: Study, todo: list[int], workers: int | None, scheduler: str | None,
              got: Callable[[Row], None]) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - a dependency
        raise VedetteError(f"Dask is not installed ({exc.name})") from None
    cluster: LocalCluster | None = None
    try:
        if scheduler:
            probe_scheduler(scheduler)
            try:
                client = Client(scheduler, timeout="5s")
            except (OSError, TimeoutError, ValueError, TypeError) as exc:
                raise VedetteError(f"--scheduler: cannot reach a Dask scheduler at {scheduler[:60]!r} "
                                   f"({type(exc).__name__})") from None
        else:
            import os
            n = workers or os.cpu_count() or 1
            if n < 1 or n > 256:
                raise VedetteError(f"--workers: expected 1 to 256 worker processes, got {n}")
            cluster = local_cluster(n)
            client = Client(cluster)
        try:
            futures = submit_study(client, study, todo)
            try:
                # on this client's own event loop: by default as_completed waits on the loop of the
                # process's default client, and a game whose finished result was lost with a killed
                # worker (so waited for again, on this client's loop) then failed with "bound to a
                # different event loop" when another client was open (the worker-kill test)
                for fut in as_completed(futures, loop=client.loop):
                    for row in fut.result():
                        got(row)
            except KeyboardInterrupt:
                client.cancel(futures)
                raise
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


#: Dask settings for the LocalCluster a study starts itself (an existing cluster keeps its own). On a
#: 2-core machine the games and Dask's housekeeping share the cores, so the housekeeping is made rare:
#: measured on 100 Fuentes greedy games with one worker, the worker's threads other than the game's took
#: 3.9 % of its wall time and the client's process (scheduler, nanny) 4.1 % of a core with Dask's defaults;
#: 0.7 % and 0.9 % with these. Benchmarks in tests/bench/test_simulate_bench.py.
LOCAL_DASK_CONFIG = {
    # the sampling profiler walks the game thread's stack every 10 ms: the largest share
    "distributed.worker.profile.enabled": False,
    # the event-loop health check (20 ms by default) wakes every process 50 times a second
    "distributed.admin.tick.interval": "1s",
    # host figures for the dashboard (psutil, every 500 ms by default); a study opens no dashboard
    "distributed.admin.system-monitor.interval": "5s",
    # the nanny's and the worker's memory checks (every 100 ms by default)
    "distributed.worker.memory.monitor-interval": "1s",
}

#: the most games in one Dask task (a Fuentes greedy game is ~0.25 s of CPU): about 32 tasks per worker
#: keep the last tasks short, so no worker idles long at the end while another plays a long chunk
MAX_CHUNK = 25
TASKS_PER_WORKER = 32


def local_cluster(n: int) -> LocalCluster:
    """A Dask LocalCluster of ``n`` one-thread worker processes with :data:`LOCAL_DASK_CONFIG` (each
    worker process takes the configuration from its nanny when it starts)."""
    import dask
    from distributed import LocalCluster
    with dask.config.set(LOCAL_DASK_CONFIG):
        # logs below CRITICAL stay quiet: a worker's lost heartbeat while the cluster closes is not news,
        # and a failed game reaches the caller through its future (Dask retries it), not through a log
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                            silence_logs=50)


def batch_games(todo: Sequence[int], workers: int) -> list[list[int]]:
    """Split the game indexes, in order, into Dask tasks of 1 to ``MAX_CHUNK`` games each: at least
    ``TASKS_PER_WORKER`` tasks per worker when there are games enough, one game a task when not."""
    chunk = max(1, min(MAX_CHUNK, len(todo) // (TASKS_PER_WORKER * max(1, workers))))
    return [list(todo[i:i + chunk]) for i in range(0, len(todo), chunk)]


def submit_study(client: Client, study: Study, todo: Sequence[int]) -> list[Future[list[Row]]]:
    """Hand the games ``todo`` of ``study`` to the Dask ``client`` in :func:`batch_games` tasks, each
    retried up to 3 times on another worker when its worker dies (so no game is lost); returns the futures,
    each giving a list of rows. The one way a study reaches Dask: the CLI and the balance page share it."""
    batches = batch_games(list(todo), max(1, len(client.scheduler_info()["workers"])))
    factory = factory_of(study.system)
    return client.map(_play_batch, [study] * len(batches), batches, [factory] * len(batches), pure=False, retries=3)


def _play_batch(study: Study, indexes: list[int],
                factory: Callable[[], GameRules[Any, Any]] | None = None) -> list[Row]:
    return [play_one(study, i, factory) for i in indexes]


# ------------------------------------------------------------------------------------------------
# Summaries
# ------------------------------------------------------------------------------------------------
def _band(values: Sequence[float]) -> dict[str, Any]:
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.pstdev(values) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else 0.0
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def summarise(rows: Sequence[Row], study: Study | None = None) -> dict[str, Any]:
    """Counts of each outcome with a 95 % Wilson interval, mean game length, metrics per turn (mean and
    the 95 % interval of the mean), and the study's settings."""
    n = len(rows)
    if n == 0:
        raise VedetteError("no finished games to summarise")
    by_winner = Counter(r["winner"] for r in rows)
    by_outcome = Counter((r["winner"], r["level"]) for r in rows)
    out: dict[str, Any] = {"games": n}
    if study is not None:
        out["study"] = study.to_json()
    out["winners"] = {w: {"count": c, "rate": c / n, "ci95": list(wilson_interval(c, n))}
                      for w, c in sorted(by_winner.items())}
    out["outcomes"] = [{"winner": w, "level": lv, "count": c, "rate": c / n, "ci95": list(wilson_interval(c, n))}
                       for (w, lv), c in sorted(by_outcome.items(), key=lambda kv: (-kv[1], kv[0]))]
    out["last_turn"] = _band([r["last_turn"] for r in rows])
    out["last_turn"]["histogram"] = dict(sorted(Counter(r["last_turn"] for r in rows).items()))
    per_turn: dict[int, dict[str, list[float]]] = {}
    for r in rows:
        for t, m in r.get("metrics_by_turn", {}).items():
            for k, v in m.items():
                per_turn.setdefault(int(t), {}).setdefault(k, []).append(float(v))
    out["metrics_by_turn"] = {str(t): {k: _band(v) for k, v in sorted(ms.items())} for t, ms in sorted(per_turn.items())}
    finals: dict[str, list[float]] = {}
    for r in rows:
        for k, v in r.get("metrics", {}).items():
            finals.setdefault(k, []).append(float(v))
    out["metrics"] = {k: _band(v) for k, v in sorted(finals.items())}
    return out


def compare(rows_a: Sequence[Row], rows_b: Sequence[Row], side: str) -> dict[str, Any]:
    """``side``'s win rate in study B minus study A, with Newcombe's 95 % interval (from the two Wilson
    intervals; method 10 of Newcombe 1998)."""
    na, nb = len(rows_a), len(rows_b)
    if not na or not nb:
        raise VedetteError("compare needs finished games in both studies")
    wa = sum(1 for r in rows_a if r["winner"] == side)
    wb = sum(1 for r in rows_b if r["winner"] == side)
    pa, pb = wa / na, wb / nb
    la, ua = wilson_interval(wa, na)
    lb, ub = wilson_interval(wb, nb)
    d = pb - pa
    low = d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    high = d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return {"side": side, "a": {"games": na, "wins": wa, "rate": pa, "ci95": [la, ua]},
            "b": {"games": nb, "wins": wb, "rate": pb, "ci95": [lb, ub]},
            "difference": d, "ci95": [max(-1.0, low), min(1.0, high)]}


# ------------------------------------------------------------------------------------------------
# Files
# ------------------------------------------------------------------------------------------------
def write_parquet(rows: Sequence[Row], path: str | Path, study: Study | None = None) -> None:
    """One row per game; metrics flattened to columns (``metric.<name>``), per-turn metrics as JSON."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    keys = sorted({k for r in rows for k in r.get("metrics", {})})
    cols: dict[str, list[Any]] = {c: [] for c in ("game", "seed", "winner", "level", "reason", "last_turn")}
    for k in keys:
        cols[f"metric.{k}"] = []
    cols["metrics_by_turn"] = []
    for r in rows:
        for c in ("game", "seed", "winner", "level", "reason", "last_turn"):
            cols[c].append(r[c])
        for k in keys:
            cols[f"metric.{k}"].append(r.get("metrics", {}).get(k))
        cols["metrics_by_turn"].append(json.dumps(r.get("metrics_by_turn", {}), sort_keys=True))
    table = pa.table({k: pa.array(v, type=pa.uint64()) if k == "seed" else v for k, v in cols.items()})
    if study is not None:
        table = table.replace_schema_metadata({"vedette.study": json.dumps(study.to_json())})
    try:
        pq.write_table(table, str(path))
    except OSError as exc:
        raise VedetteError(f"{path}: cannot write the results ({exc})"[:200]) from None


def read_parquet(path: str | Path) -> list[Row]:
    import pyarrow.parquet as pq
    table = pq.read_table(str(path))
    out = []
    for r in table.to_pylist():
        metrics = {k[len("metric."):]: v for k, v in r.items() if k.startswith("metric.") and v is not None}
        out.append({"game": r["game"], "seed": r["seed"], "winner": r["winner"], "level": r["level"],
                    "reason": r["reason"], "last_turn": r["last_turn"], "metrics": metrics,
                    "metrics_by_turn": json.loads(r["metrics_by_turn"])})
    return out

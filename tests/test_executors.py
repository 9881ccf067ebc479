"""Executors: results in item order, payload delivered once per worker, identical runs everywhere."""

from __future__ import annotations

import os
import sys

import cloudpickle
import numpy as np
import pytest

from schedlab.execute import DaskExecutor, ExecutorError, ProcessExecutor, SerialExecutor, make_executor
from schedlab.optimize.es import SelfAdaptiveES
from schedlab.optimize.run import RunFolder, optimize

# dask workers are separate interpreters that cannot import this test module: ship it by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def shifted_rastrigin(target: np.ndarray, x: np.ndarray) -> float:
    """A multimodal toy objective whose optimum is the payload ``target``."""
    z = np.asarray(x) - target
    return float(10 * z.size + np.sum(z * z - 10 * np.cos(2 * np.pi * z)))


def payload_identity(payload: dict, item: int) -> tuple[int, int, int]:
    """(item, id of the payload object in this process, pid): shows where and with what it ran."""
    return item * payload["factor"], id(payload), os.getpid()


def test_serial_and_processes_keep_item_order_and_share_one_payload_per_worker():
    payload = {"factor": 3, "blob": np.arange(10_000)}
    with SerialExecutor(payload) as ex:
        serial = ex.map(payload_identity, range(20))
    assert [r[0] for r in serial] == [3 * i for i in range(20)]
    with ProcessExecutor(2, payload) as ex:
        assert ex.workers == 2
        ticks: list[int] = []
        out = ex.map(payload_identity, range(40), progress=ticks.append)
    assert ticks == list(range(1, 41))  # one call per finished item, counting up
    assert [r[0] for r in out] == [3 * i for i in range(40)]
    pids = {r[2] for r in out}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    # one payload object per worker process: every task in a worker saw the very same object
    per_pid = {}
    for _, ident, pid in out:
        per_pid.setdefault(pid, set()).add(ident)
    assert all(len(ids) == 1 for ids in per_pid.values())


def test_make_executor_specs_and_bad_spec():
    assert isinstance(make_executor("serial"), SerialExecutor)
    assert isinstance(make_executor(None, workers=1), SerialExecutor)
    with make_executor("processes:2") as ex:
        assert isinstance(ex, ProcessExecutor) and ex.workers == 2
    with pytest.raises(ExecutorError, match="unknown executor"):
        make_executor("threads")
    with pytest.raises(ExecutorError, match="whole number"):
        make_executor("processes:two")
    with pytest.raises(ExecutorError, match="does not exist"):
        make_executor("dask:/nonexistent/scheduler.json")
    # a mistyped count would fork that many processes at once: refused before any is started
    too_many = 4 * (os.cpu_count() or 1) + 1
    with pytest.raises(ExecutorError, match=f"{too_many} worker processes .* at most {too_many - 1}"):
        make_executor(None, workers=too_many)


def _small_run(tmp_path, name, executor):
    run = RunFolder(tmp_path / name, {"problem": "rastrigin", "seed": 7})
    return optimize(
        run,
        lambda: SelfAdaptiveES([-5.12] * 4, [5.12] * 4, mu=5, lam=20, seed=7),
        shifted_rastrigin,
        executor,
        6,
    )


@pytest.mark.slow  # starts a local dask cluster and a process pool
def test_same_seed_same_run_serial_processes_and_dask(tmp_path):
    from distributed import LocalCluster

    target = np.array([0.3, -1.2, 2.0, 0.5])
    with SerialExecutor(target) as ex:
        ref = _small_run(tmp_path, "serial", ex)
    with ProcessExecutor(2, target) as ex:
        proc = _small_run(tmp_path, "procs", ex)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with DaskExecutor(cluster.scheduler_address, payload=target) as ex:
            assert ex.workers == 2
            ticks: list[int] = []
            assert ex.map(shifted_rastrigin, [target, target + 1], progress=ticks.append) == [
                shifted_rastrigin(target, target), shifted_rastrigin(target, target + 1)]
            assert ticks == [1, 2]
            dask = _small_run(tmp_path, "dask", ex)
    strip = lambda h: [{k: v for k, v in r.items() if k != "elapsed"} for r in h]  # noqa: E731
    assert ref.generations == 6 and ref.evaluations == 120
    assert ref.best_f < shifted_rastrigin(target, np.zeros(4))  # it optimised something
    for other in (proc, dask):
        assert other.best_f == ref.best_f
        assert np.array_equal(other.best_x, ref.best_x)
        assert strip(other.history) == strip(ref.history)
    # and the history files are byte-identical apart from the elapsed column
    def table(name):
        lines = (tmp_path / name / "history.csv").read_text().splitlines()
        return [",".join(c for i, c in enumerate(line.split(",")) if i != 5) for line in lines]

    assert table("serial") == table("procs") == table("dask")


@pytest.mark.slow  # starts a local dask cluster and a process pool
def test_greedy_optimization_identical_serial_processes_and_dask(tmp_path):
    """The real problem (first month of KTH-SP2): same seed -> same history and best on every executor."""
    from distributed import LocalCluster

    from schedlab.optimize.evolve import EvolveConfig, evolve_greedy
    from schedlab.workload import load_trace, write_swf

    trace = tmp_path / "kth1.swf"
    write_swf(load_trace("KTH-SP2", months=1), trace)
    config = EvolveConfig(traces=(str(trace),), generations=3, mu=3, lam=6, seed=21)
    serial = evolve_greedy(config, tmp_path / "serial", executor="serial")
    procs = evolve_greedy(config, tmp_path / "procs", executor="processes:2")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = evolve_greedy(config, tmp_path / "dask", executor=f"dask:{cluster.scheduler_address}")

    def table(name):
        lines = (tmp_path / name / "history.csv").read_text().splitlines()
        return [",".join(c for i, c in enumerate(line.split(",")) if i != 5) for line in lines]

    assert len(table("serial")) == 4
    assert table("serial") == table("procs") == table("dask")
    assert serial.best == procs.best == dask.best
    assert serial.best_f == procs.best_f == dask.best_f
    best = [(tmp_path / n / "best.json").read_text() for n in ("serial", "procs", "dask")]
    assert best[0] == best[1] == best[2]

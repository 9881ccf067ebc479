"""Sub-second times from slurmctld's own log (issue 44, item 6): the harness reads each job's submit,
start and end to the millisecond, a recorded case keeps them, and the conformance scorer can
simulate the jobs with them (``--runtimes ctld-ms``) instead of sacct's whole seconds.

The committed recordings in tests/data/slurm44ms (``slurm_conformance.py --record44``) are
re-checked offline here; no real Slurm is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schedlab.slurm.conformance import recorded_case, same_order_ms
from schedlab.slurm.harness import SlurmHarnessError, SlurmJob, SlurmResult, load_case, parse_ctld_log, save_case

# slurmctld 22.05 lines as it writes them (LogTimeFormat iso8601_ms, TZ=UTC), for jobs 1-3 and an
# unrelated job 9; job 2 is started by the backfill thread, the others by the main scheduler.
LOG = """\
[2026-12-02T07:06:10.100] Running as primary controller
[2026-12-02T07:06:11.531] _slurm_rpc_submit_batch_job: JobId=1 InitPrio=4294901759 usec=1023
[2026-12-02T07:06:11.826] _slurm_rpc_submit_batch_job: JobId=2 InitPrio=4294901758 usec=912
[2026-12-02T07:06:12.025] _slurm_rpc_submit_batch_job: JobId=3 InitPrio=4294901757 usec=763
[2026-12-02T07:06:12.026] _slurm_rpc_submit_batch_job: JobId=9 InitPrio=4294901756 usec=763
[2026-12-02T07:06:14.104] sched: Allocate JobId=1 NodeList=sl1 #CPUs=4 Partition=debug
[2026-12-02T07:06:16.130] _job_complete: JobId=1 WEXITSTATUS 0
[2026-12-02T07:06:16.132] _job_complete: JobId=1 done
[2026-12-02T07:06:17.108] sched/backfill: _start_job: Started JobId=2 in debug on sl1
[2026-12-02T07:06:17.200] debug:  some other line naming JobId=2 done
[2026-12-02T07:06:18.143] _job_complete: JobId=2 done
[2026-12-02T07:06:20.120] sched: Allocate JobId=3 NodeList=sl1 #CPUs=2 Partition=debug
"""
T0 = 1796195171.0  # 2026-12-02T07:06:11 UTC


def test_the_log_gives_each_jobs_submit_start_and_the_moment_its_cpus_are_freed():
    times, kept = parse_ctld_log(LOG, [1, 2, 3])
    # worked from the lines above: job 1 submitted at .531, allocated 14.104, done (not the
    # WEXITSTATUS line before the CPUs are given back) at 16.132; job 2 started by backfill;
    # job 3 has no end line (nan); job 9 is not asked for
    np.testing.assert_allclose(times["submit"] - T0, [0.531, 0.826, 1.025], atol=1e-6)
    np.testing.assert_allclose(times["start"][:3] - T0, [3.104, 6.108, 9.120], atol=1e-6)
    np.testing.assert_allclose(times["end"][:2] - T0, [5.132, 7.143], atol=1e-6)
    assert np.isnan(times["end"][2])
    assert "JobId=9" not in kept and "WEXITSTATUS" not in kept and "some other line" not in kept
    assert len(kept.splitlines()) == 8
    again, _ = parse_ctld_log(kept, [1, 2, 3])  # the kept lines alone give the same times
    for key in times:
        np.testing.assert_array_equal(again[key], times[key])


def _result(**ms):
    return SlurmResult(job_id=np.array([7, 8]), submit=np.array([0.0, 2.0]), start=np.array([1.0, 3.0]),
                       end=np.array([6.0, 6.0]), state=("COMPLETED",) * 2, partition=("batch",) * 2, account=("a", "b"),
                       origin=1796176200, conf="", ignored=(), controller_start=-12.5, **ms)


JOBS = [SlurmJob(cpus=2, runtime=5, limit=1), SlurmJob(cpus=1, runtime=3, limit=2, submit=2)]


def test_a_case_keeps_its_millisecond_times_and_an_older_case_still_loads(tmp_path):
    ms = dict(ctld_submit=np.array([0.25, 2.5]), ctld_start=np.array([1.104, 3.9]), ctld_end=np.array([6.2, np.nan]),
              ctld_log="[x] line\n")
    save_case(tmp_path / "c.json", "two", JOBS, "NodeName=sl1 CPUs=4\n", _result(**ms), cpus=4)
    assert json.loads((tmp_path / "c.json").read_text())["ctld_end"] == [6.2, None]
    back = load_case(tmp_path / "c.json")[3]
    np.testing.assert_array_equal(back.ctld_start, ms["ctld_start"])
    np.testing.assert_array_equal(back.ctld_end, ms["ctld_end"])
    assert back.ctld_log == "[x] line\n"
    save_case(tmp_path / "old.json", "two", JOBS, "NodeName=sl1 CPUs=4\n", _result(), cpus=4)
    old = load_case(tmp_path / "old.json")[3]
    assert old.ctld_start is None and "ctld_start" not in json.loads((tmp_path / "old.json").read_text())


def test_the_two_input_readings_time_the_jobs_from_their_own_records():
    ms = dict(ctld_submit=np.array([0.25, 2.5]), ctld_start=np.array([1.104, 3.9]), ctld_end=np.array([6.2, 6.95]))
    jobs, real = recorded_case(JOBS, _result(**ms), "sacct")
    assert [(j.submit, j.runtime) for j in jobs] == [(0.0, 5.0), (2.0, 3.0)]  # Elapsed: whole seconds
    assert real.start.tolist() == [1.0, 3.0]
    jobs, real = recorded_case(JOBS, _result(**ms), "ctld-ms")
    np.testing.assert_allclose([(j.submit, j.runtime) for j in jobs], [(0.25, 5.096), (2.5, 3.05)])
    assert real.start.tolist() == [1.104, 3.9] and [j.cpus for j in jobs] == [2, 1]
    with pytest.raises(SlurmHarnessError, match=r"^old\.json: recorded without slurmctld's millisecond times"):
        recorded_case(JOBS, _result(), "ctld-ms", source="old.json")
    with pytest.raises(SlurmHarnessError, match=r"^c: job 1 \(JobId=8\) lacks a submit, start or end line"):
        recorded_case(JOBS, _result(**{**ms, "ctld_end": np.array([6.2, np.nan])}), "ctld-ms", source="c")
    with pytest.raises(SlurmHarnessError, match=r"unknown runtimes reading 'ms'"):
        recorded_case(JOBS, _result(**ms), "ms")


def test_the_ms_order_takes_simultaneous_simulated_starts_either_way():
    class S:
        def __init__(self, start):
            self.start = np.array(start, float)

    real = S([1.2, 1.1, 3.0])
    assert same_order_ms(real, S([5.0, 5.0, 7.0]))  # a tie in the simulator: either order
    assert same_order_ms(real, S([5.1, 5.0, 7.0]))
    assert not same_order_ms(real, S([5.0, 5.1, 7.0]))  # job 0 simulated before job 1: the log says after
    assert not same_order_ms(real, S([5.0, 5.0, 4.0]))


MS = sorted((Path(__file__).parent / "data" / "slurm44ms").glob("case*.json"), key=lambda q: int(q.stem[4:]))


@pytest.mark.parametrize("path", MS, ids=[p.stem for p in MS])
def test_a_committed_ms_recording_agrees_with_its_whole_second_records(path):
    # the log's milliseconds and jobcomp's whole seconds time the same events: Slurm sets
    # submit_time/start_time/end_time = time(NULL) and logs the line a little later in the same
    # call, so each whole second is the floor of the log's time, or the second before when the
    # line is written just past a second's turn (10 ms allowed for that call); and the kept lines
    # give the stored times again
    _, jobs, _, result, _ = load_case(path)
    ids = result.job_id.tolist()
    for key, whole in (("ctld_submit", result.submit), ("ctld_start", result.start), ("ctld_end", result.end)):
        ms = getattr(result, key)
        assert not np.isnan(ms).any()
        late = ms - whole
        assert np.all((late >= -5e-4) & (late < 1.01)), (key, late.min(), late.max())
    again, _ = parse_ctld_log(result.ctld_log, ids)
    for key in ("submit", "start", "end"):
        np.testing.assert_allclose(again[key] - result.origin, getattr(result, f"ctld_{key}"), atol=5e-4)
    held = result.ctld_end - result.ctld_start
    sleep = np.array([j.runtime for j in jobs])
    assert np.all(held >= sleep)  # a job holds its CPUs at least as long as it sleeps


def _score(reading: str, paths=MS):
    """Per committed ms case under ``reading``: (starts within the tolerance, jobs, same order
    as the log's milliseconds with simulated ties either way), Slurm's readings (the defaults)."""
    from schedlab.slurm.conformance import case_tolerance, compare, simulate_recorded

    out = []
    for path in paths:
        _, jobs, conf, result, cpus = load_case(path)
        rec, real = recorded_case(jobs, result, reading, source=path.name)
        sim = simulate_recorded(rec, result, conf, cpus)  # (validated)
        absolute, _, _ = compare(real, sim, case_tolerance(conf))
        _, ms_real = recorded_case(jobs, result, "ctld-ms", source=path.name)
        out.append((len(jobs) - len(absolute), len(jobs), same_order_ms(ms_real, sim)))
    return out


REPORT = Path(__file__).parents[1] / "docs" / "results" / "slurm-conformance-44-ms.md"


def _reported(reading: str, report=REPORT, n=len(MS)):
    """The committed report's row for Slurm's readings under ``reading``: per case the starts
    within the tolerance, and the number of cases in the log's millisecond order (None: n/a)."""
    import re

    text = report.read_text()
    section = text[text.index(f"## Input `--runtimes {reading}`"):]
    row = next(ln for ln in section.splitlines() if ln.startswith("| Slurm's readings (all on) |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    within = [int(re.match(r"(\d+)/", c).group(1)) for c in cells[1:1 + n]]
    ms_order = re.match(r"(\d+) of", cells[-1])
    return within, int(ms_order.group(1)) if ms_order else None


def test_millisecond_inputs_bring_the_simulated_starts_closer_to_the_real_ones():
    # issue 44, item 6: the committed recordings re-scored here give the committed report's figures
    # (docs/results/slurm-conformance-44-ms.md, `--score44 tests/data/slurm44ms --runtimes
    # sacct,ctld-ms`), and the log's milliseconds match more starts than sacct's whole seconds on the
    # same runs, in total (per case in the report: case7 loses one start).
    sacct, ms = _score("sacct"), _score("ctld-ms")
    assert [c[0] for c in sacct] == _reported("sacct")[0]
    assert [c[0] for c in ms] == _reported("ctld-ms")[0]
    assert sum(c[2] for c in ms) == _reported("ctld-ms")[1]
    assert sum(c[0] for c in ms) > sum(c[0] for c in sacct)


def test_a_jobs_age_is_counted_in_whole_seconds_as_slurm_counts_it():
    # priority_multifactor.c: uint32_t diff = start_time - accrue_time, both time_t. Worked by
    # hand: weight 1000, PriorityMaxAge 120 s, no other factor, whole-number priorities; a job
    # submitted at 5.933 s is 84 - 5 = 79 s old at 84.3 s: 1000 * 79 / 120 = 658.3 -> 658 (the
    # exact 78.367 s would give 653); one submitted at 6.058 s is 78 s old: 650. So the earlier
    # submitted of two jobs a second apart keeps its 8-point lead however their fractions fall
    # (0.125 s apart they would be 1 point apart: a size factor of 6.25 points flips them, as on
    # the harness' age case, where slurmctld started the earlier job first).
    from schedlab.slurm import layout as L
    from schedlab.slurm.ops import _priority
    from support.slurm_naive import _priority as naive_priority

    JF = np.zeros((L.N_JF, 2))
    JF[L.F_SUBMIT] = [5.933, 6.058]
    JI = np.zeros((L.N_JI, 2), dtype=np.int64)
    P = np.zeros(L.N_P)
    P[L.P_W_AGE], P[L.P_MAX_AGE] = 1000.0, 120.0
    O = np.zeros(L.N_O, dtype=np.int64)
    O[L.O_FLOOR_PRIO] = 1
    fs = np.zeros(1)
    for prio in (_priority, naive_priority):
        assert prio(0, 84.3, JF, JI, P, O, fs) == 658.0
        assert prio(1, 84.3, JF, JI, P, O, fs) == 650.0
        assert prio(1, 6.9, JF, JI, P, O, fs) == 1.0  # 0 s old: the sum below 1 is 1


PRIO = sorted((Path(__file__).parent / "data" / "slurm44prio").glob("case*.json"), key=lambda q: int(q.stem[4:]))
PRIO_REPORT = Path(__file__).parents[1] / "docs" / "results" / "slurm-conformance-44-prio.md"


@pytest.mark.parametrize("path", PRIO, ids=[p.stem for p in PRIO])
def test_a_recording_carries_the_decay_threads_start(path):
    # the eight settings recorded again with the decay thread's "No last decay" line (issue 44, second
    # stop): the thread starts after "Running as primary controller" and the accounting registration
    # (controller.c: priority_g_init), well under a second later, before the first submission
    _, _, _, result, _ = load_case(path)
    assert result.controller_start < result.decay_start < min(result.controller_start + 1.0, 0.0)
    assert not np.isnan(result.ctld_start).any()


def test_the_priority_timing_recordings_score_as_reported():
    # docs/results/slurm-conformance-44-prio.md (`--score44 tests/data/slurm44prio --runtimes
    # sacct,ctld-ms`) re-scored from the committed recordings: per case the starts within the
    # tolerance and the cases in the log's millisecond order, under both input readings
    for reading in ("sacct", "ctld-ms"):
        got = _score(reading, PRIO)
        within, order = _reported(reading, PRIO_REPORT, len(PRIO))
        assert [c[0] for c in got] == within
        if order is not None:
            assert sum(c[2] for c in got) == order
    # issue 44's target on the log's milliseconds: >= 90 % of the starts within max(bf_interval, 5) s
    # (met: 253 of 256); the same order on every case is not (6 of 8)
    got = _score("ctld-ms", PRIO)
    assert sum(c[0] for c in got) >= 0.9 * sum(c[1] for c in got)

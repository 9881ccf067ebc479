"""Metrics per resource (issue 47 item 4; docs/resources.md "Metrics per resource"): utilisation of
CPUs, GPUs and memory and waits per partition and per QOS, each computed by hand in its docstring.
Every schedule goes through the CPU validator and, with nodes, the node validator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedlab.cli.main import main
from schedlab.sim.model import Machine
from schedlab.sim.strategies import simulate_any
from schedlab.sim.validate import validate_schedule
from schedlab.slurm.check import check_log, text_report
from schedlab.slurm.conf import parse_conf
from schedlab.slurm.policy import SlurmOptions, SlurmPolicy, simulate_slurm
from schedlab.strategy import Strategy
from schedlab.workload.model import Workload
from schedlab.workload.resources import Resources
from schedlab.workload.swf import write_swf
from support.resource_naive import checked_nodes

#: two nodes: g1 (8 CPUs, 16000 MB, 2 GPUs) in partition gpu, n1 (8 CPUs, 16000 MB) in partition cpu;
#: the main scheduler alone, run at every submission and end
CONF = ("SchedulerType=sched/builtin\nSelectTypeParameters=CR_CPU_Memory\n"
        "NodeName=g1 CPUs=8 RealMemory=16000 Gres=gpu:2\nNodeName=n1 CPUs=8 RealMemory=16000\n"
        "PartitionName=cpu Nodes=n1 Default=YES MaxTime=60\nPartitionName=gpu Nodes=g1 MaxTime=60\n")
NOW = dict(sched_on_submit="immediate", sched_on_end="immediate", kill_check="exact")


def resource_metrics(schedule) -> dict:
    """:func:`schedlab.metrics.resources.resource_metrics` (imported here: each test fails on its own on the old code)."""
    from schedlab.metrics.resources import resource_metrics as measured

    return measured(schedule)


def two_node_trace() -> Workload:
    """Four jobs (submit, CPUs, runtime, partition, QOS, MB, GPUs):
    1 (0, 4, 100, gpu, normal, 8000, 2), 2 (0, 2, 50, gpu, high, 4000, 1),
    3 (0, 8, 150, cpu, normal, 16000, 0), 4 (50, 2, 50, cpu, high, 2000, 0); limits 10 min."""
    n = 4
    w = Workload.from_columns(
        dict(id=np.arange(1, n + 1), submit=np.array([0.0, 0, 0, 50]), procs=np.array([4, 2, 8, 2]),
             req_procs=np.array([4, 2, 8, 2]), runtime=np.array([100.0, 50, 150, 50]), estimate=np.full(n, 600.0),
             queue=np.array([2, 2, 1, 1]), partition=np.array([1, 2, 1, 2]), unix_group=np.ones(n, int),
             user=np.arange(1, n + 1), status=np.ones(n, int)),
        machine_procs=16, name="two-node", header=(" MaxProcs: 16", " SchedlabQueues: cpu=1 gpu=2", " SchedlabQOS: normal=1 high=2"))
    return w.replace(resources=Resources.build(n, req_mem=[8000.0, 4000.0, 16000.0, 2000.0],
                                               req_gres={"gpu": [2, 1, 0, 0]}))


def slurm_run(w):
    s = simulate_slurm(w, w.machine_procs, SlurmPolicy(parse_conf(CONF, "t.conf"), SlurmOptions(**NOW)))
    validate_schedule(s)
    return checked_nodes(s, w)


def test_gpu_memory_and_cpu_utilisation_of_a_two_node_schedule():
    """Job 1 takes g1's 2 GPUs at 0..100; job 2 (1 GPU) finds 4 CPUs and 8000 MB free on g1 but no
    GPU: it runs 100..150. Job 3 fills n1 (8 CPUs, 16000 MB) 0..150; job 4 (t=50) waits for n1:
    150..200. Span max C - min S = 200 - 0 = 200 s.

    CPU_UTIL = (4x100 + 2x50 + 8x150 + 2x50) / (16 x 200) = 1800 / 3200 = 56.25 %
    GPU_UTIL = (2x100 + 1x50) / (2 x 200) = 250 / 400 = 62.5 %
    MEM_UTIL = (8000x100 + 4000x50 + 16000x150 + 2000x50) / (32000 x 200) = 3 500 000 / 6 400 000 = 54.6875 %"""
    s = slurm_run(two_node_trace())
    assert list(s.start) == [0, 100, 0, 150] and list(s.finish) == [100, 150, 150, 200]
    m = resource_metrics(s)
    assert m["CPU_UTIL"] == pytest.approx(56.25)
    assert m["GPU_UTIL"] == pytest.approx(62.5)
    assert m["MEM_UTIL"] == pytest.approx(54.6875)


def test_waits_per_partition_and_qos_of_the_two_node_schedule():
    """Waits S - r: job 1 0, job 2 100, job 3 0, job 4 150 - 50 = 100; weights p m: 400, 100, 1200, 100;
    responses C - r: 100, 150, 150, 150.

    partition gpu (1, 2): mean wait 50, AWRT (400x100 + 100x150) / 500 = 110
    partition cpu (3, 4): mean wait 50, AWRT (1200x150 + 100x150) / 1300 = 150
    QOS normal (1, 3): mean wait 0, AWRT (400x100 + 1200x150) / 1600 = 137.5
    QOS high (2, 4): mean wait 100, AWRT (100x150 + 100x150) / 200 = 150"""
    waits = resource_metrics(slurm_run(two_node_trace()))["waits"]
    assert waits == {"partition": {"cpu": {"jobs": 2, "mean_wait": 50.0, "AWRT": 150.0},
                                   "gpu": {"jobs": 2, "mean_wait": 50.0, "AWRT": 110.0}},
                     "qos": {"high": {"jobs": 2, "mean_wait": 100.0, "AWRT": 150.0},
                             "normal": {"jobs": 2, "mean_wait": 0.0, "AWRT": 137.5}}}


def test_a_cpu_only_run_shows_cpu_utilisation_alone():
    """EASY on 16 identical processors (memory and GPUs not modelled): jobs 1, 2, 3 start at 0
    (4 + 2 + 8 = 14 CPUs); job 2 ends at 50, so job 4 (2 CPUs, t=50) starts at 50 and ends at 100.
    Span 150 s: CPU_UTIL = 1800 / (16 x 150) = 75 %; no GPU_UTIL or MEM_UTIL (not allocated, not
    shown). Every wait is 0: partition gpu AWRT (400x100 + 100x50) / 500 = 90; cpu (1200x150 +
    100x50) / 1300 = 185000 / 1300."""
    w = two_node_trace()
    s = simulate_any(w, Machine(16), Strategy("easy"))
    validate_schedule(s)
    m = resource_metrics(s)
    assert set(m) == {"CPU_UTIL", "waits"}
    assert m["CPU_UTIL"] == pytest.approx(75.0)
    assert m["waits"]["partition"]["gpu"] == {"jobs": 2, "mean_wait": 0.0, "AWRT": 90.0}
    assert m["waits"]["partition"]["cpu"]["AWRT"] == pytest.approx(185000 / 1300)
    assert resource_metrics(s.__class__(w.replace(resources=None), s.machine, s.strategy, s.start, s.finish)) == {}


def test_simulate_json_and_table_and_slurm_check_show_them(tmp_path, capsys, monkeypatch):
    """The same trace as an SWF file (its GPUs in the SchedlabGPUs header line, memory in field 10)
    run by `simulate --policy slurm`: --json has the hand-worked figures above; the table shows the
    GPU % column and the waits per partition and QOS; slurm check's report the QOS sets and the line
    of utilisation."""
    trace, conf = tmp_path / "t.swf", tmp_path / "t.conf"
    write_swf(two_node_trace(), trace)
    conf.write_text(CONF)
    args = ["simulate", str(trace), "--policy", "slurm", "--slurm-conf", str(conf),
            "--slurm-option", "sched_on_submit=immediate,sched_on_end=immediate,kill_check=exact"]
    assert main([*args, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["GPU_UTIL"] == pytest.approx(62.5) and got["MEM_UTIL"] == pytest.approx(54.6875)
    assert got["waits"]["qos"]["normal"]["AWRT"] == pytest.approx(137.5)
    monkeypatch.setenv("COLUMNS", "250")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "GPU %" in out and "62.50" in out and "qos high" in out
    w = two_node_trace()
    w = w.replace(wait=np.array([0.0, 100, 0, 100]))  # the log's starts: as simulated
    report = check_log(w, SlurmPolicy(parse_conf(CONF, "t.conf"), SlurmOptions(**NOW)))
    assert report.groups[("qos", "high")]["simulated_mean_wait_s"] == 100.0
    text = text_report(report, "t")
    assert "| GPU | not in the log (no AllocTRES gres/gpu: AccountingStorageTRES) | 62.50 % |" in text
    assert "| CPU | 56.25 % | 56.25 % |" in text  # (the log's starts are the simulated ones)


def test_slurm_check_shows_the_recorded_utilisation_beside_the_simulated():
    """The two-node trace as a log whose jobs all started at submission (recorded waits 0: starts 0, 0,
    0, 50; runtimes 100, 50, 150, 50, so finishes 100, 50, 150, 100; span 150 s) with AllocTRES GPUs
    2, 1, 0, 0 and memory 8000, 4000, 16000, 4000 MB (job 4 given more than its 2000 MB request),
    against the slurm.conf's 16 CPUs, 2 GPUs, 32000 MB:

    recorded CPU = (4x100 + 2x50 + 8x150 + 2x50) / (16 x 150) = 1800 / 2400 = 75 %
    recorded GPU = (2x100 + 1x50) / (2 x 150) = 250 / 300 = 83.33 %
    recorded memory = (8000x100 + 4000x50 + 16000x150 + 4000x50) / (32000 x 150) = 3 600 000 / 4 800 000 = 75 %
    beside the simulated 56.25, 62.50, 54.69 % (the first test)."""
    w = two_node_trace()
    w = w.replace(wait=np.zeros(4), resources=Resources.build(
        4, req_mem=[8000.0, 4000.0, 16000.0, 2000.0], req_gres={"gpu": [2, 1, 0, 0]},
        mem=[8000.0, 4000.0, 16000.0, 4000.0], gres={"gpu": [2, 1, 0, 0]}))
    report = check_log(w, SlurmPolicy(parse_conf(CONF, "t.conf"), SlurmOptions(**NOW)))
    assert report.recorded_utilisation == {"CPU_UTIL": pytest.approx(75.0), "GPU_UTIL": pytest.approx(250 / 3),
                                           "MEM_UTIL": pytest.approx(75.0)}
    assert report.summary()["recorded_utilisation_pct"]["GPU_UTIL"] == pytest.approx(250 / 3)
    text = text_report(report, "t")
    for row in ("| CPU | 75.00 % | 56.25 % |", "| GPU | 83.33 % | 62.50 % |", "| memory | 75.00 % | 54.69 % |"):
        assert row in text
    unknown = check_log(w.replace(wait=np.array([0.0, -1, 0, 0])), SlurmPolicy(parse_conf(CONF, "t.conf"), SlurmOptions(**NOW)))
    assert unknown.recorded_utilisation == {}  # job 2's start is not in the log: no recorded figure at all
    assert "| GPU | not in the log (no recorded start for every job) | 62.50 % |" in text_report(unknown, "t")


def _drawn(monkeypatch, draw) -> dict:
    """The figures ``draw`` saves, by file name (the figure objects, kept when save_figure_atomic is called)."""
    import schedlab.report.schedule_plots as sp

    figs = {}
    monkeypatch.setattr(sp, "save_figure_atomic", lambda fig, path, **kw: figs.__setitem__(path.name, fig))
    draw()
    return figs


def test_the_plots_draw_gpu_and_memory_utilisation_and_waits_per_partition_and_qos(tmp_path, monkeypatch):
    """The two-node schedule above (starts 0, 100, 0, 150) drawn in 4 bins of 50 s over 0..200 (submit
    min 0, finish max 200): in percent of 16 CPUs, 2 GPUs and 32000 MB,

    - CPUs: [0, 50) and [50, 100) jobs 1, 3: 12/16 = 75; [100, 150) jobs 2, 3: 10/16 = 62.5; [150, 200) job 4: 2/16 = 12.5;
    - GPUs: job 1's 2 of 2 until 100 (100, 100), job 2's 1 of 2 (50), then 0;
    - memory: (8000 + 16000)/32000 = 75, 75; (4000 + 16000)/32000 = 62.5; 2000/32000 = 6.25.

    waits.png: the user-group panel, then a panel per partition (cpu, gpu) and per QOS (high, normal);
    plots.html: the utilisation per resource of the hand-worked test above (56.25, 62.50, 54.69)."""
    from schedlab.metrics.per_job import job_table
    from schedlab.report.schedule_plots import utilisation_figure, waits_figure, write_schedule_plots

    table = job_table(slurm_run(two_node_trace()))
    assert table["alloc_gpus"].tolist() == [2, 1, 0, 0] and table["qos"].tolist() == ["normal", "high", "normal", "high"]
    assert table.attrs["capacity"] == {"alloc_cpus": 16.0, "alloc_gpus": 2.0, "alloc_mem_mb": 32000.0}
    figs = _drawn(monkeypatch, lambda: (utilisation_figure({"slurm": table}, 16, tmp_path / "u.png", bins=4),
                                        waits_figure({"slurm": table}, tmp_path / "w.png")))
    ax = figs["u.png"].axes[0]
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    assert lines == {"slurm: CPUs (of 16 CPUs)": pytest.approx([75, 75, 62.5, 12.5]),
                     "slurm: GPUs (of 2 GPUs)": pytest.approx([100, 100, 50, 0]),
                     "slurm: memory (of 32,000 MB)": pytest.approx([75, 75, 62.5, 6.25])}
    assert ax.get_ylabel() == "utilisation [% of each resource]"
    panels = figs["w.png"].axes
    assert [a.get_title().split(" (")[0] for a in panels] == ["Wait per user group", "Wait per partition", "Wait per QOS"]
    assert [t.get_text() for t in panels[1].get_xticklabels()] == ["partition cpu", "partition gpu"]
    assert [t.get_text() for t in panels[2].get_xticklabels()] == ["QOS high", "QOS normal"]
    monkeypatch.undo()
    write_schedule_plots({"slurm": table}, 16, tmp_path / "p")
    page = (tmp_path / "p" / "plots.html").read_text()
    assert "<td>slurm</td><td>56.25</td><td>62.50</td><td>54.69</td>" in page
    assert "Wait per user group, partition, QOS" in page


def test_a_cpu_only_run_plots_processors_alone(tmp_path, monkeypatch):
    """EASY on 16 identical processors (the CPU-only test above: jobs 1, 2, 3 at 0, job 4 50..100, span
    0..150) in 3 bins of 50 s: one line, processors in % of m: (4+2+8)/16 = 87.5, (4+8+2)/16 = 87.5,
    8/16 = 50; no GPU or memory line and no table of them in plots.html (nothing allocated them)."""
    from schedlab.metrics.per_job import job_table
    from schedlab.report.schedule_plots import utilisation_figure, write_schedule_plots

    s = simulate_any(two_node_trace(), Machine(16), Strategy("easy"))
    validate_schedule(s)
    table = job_table(s)
    assert "alloc_gpus" not in table.columns and not table.attrs.get("capacity")
    figs = _drawn(monkeypatch, lambda: utilisation_figure({"easy": table}, 16, tmp_path / "u.png", bins=3))
    ax = figs["u.png"].axes[0]
    assert [(line.get_label(), list(line.get_ydata())) for line in ax.get_lines()] == [("easy", pytest.approx([87.5, 87.5, 50]))]
    assert ax.get_ylabel() == "utilisation [% of m]"
    monkeypatch.undo()
    write_schedule_plots({"easy": table}, 16, tmp_path / "p")
    assert "Utilisation per resource" not in (tmp_path / "p" / "plots.html").read_text()


def test_slurm_checks_figure_colours_the_waits_by_partition(tmp_path, monkeypatch):
    """check.png of the two-node log above (partitions cpu: jobs 3, 4; gpu: jobs 1, 2): the recorded vs
    simulated wait of each job, one colour per partition, recorded waits 0 and simulated 0, 100 (gpu)
    and 0, 100 (cpu), as the hand-worked schedule."""
    import matplotlib.figure

    from schedlab.slurm.check import write_outputs

    w = two_node_trace().replace(wait=np.zeros(4))
    report = check_log(w, SlurmPolicy(parse_conf(CONF, "t.conf"), SlurmOptions(**NOW)))
    figs = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: figs.append(fig))
    write_outputs(report, tmp_path, "t")
    ax = figs[0].axes[0]
    got = {c.get_label(): sorted(map(tuple, c.get_offsets().tolist())) for c in ax.collections}
    assert got == {"partition cpu": [(0, 0), (0, 100)], "partition gpu": [(0, 0), (0, 100)]}

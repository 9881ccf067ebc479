"""`schedlab federation`: platform files (good and bad), run --json, compare table and figures."""

from __future__ import annotations

import json

import numpy as np

import pytest

from conftest import trace_path
from schedlab.cli.main import main

GOOD = """
name = "two"

[[clusters]]
name = "fast"
nodes = 4
power = 2.0

[[clusters]]
name = "mixed"
powers = [1.0, 1.0, 0.5]

[[links]]
cluster = "fast"
bandwidth = 50

[[links]]
cluster = "mixed"
bandwidth = 20
"""


def _write(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_platform_show_reads_and_normalizes(tmp_path, capsys):
    assert main(["federation", "platform", "show", _write(tmp_path, GOOD), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in d["clusters"]] == ["fast", "mixed"]
    assert d["clusters"][0]["power"] == 1.0  # 2.0 normalized by the fastest node
    assert d["clusters"][1]["powers"] == [0.5, 0.5, 0.25]
    assert [lk["bandwidth"] for lk in d["links"]] == [50.0, 20.0]
    assert main(["federation", "platform", "show"]) == 0
    out = capsys.readouterr().out
    assert "256 nodes" in out and "0.4" in out


@pytest.mark.parametrize(
    "text, name, message",
    [
        (GOOD.replace('cluster = "mixed"', 'cluster = "slow"'), "p.toml", "links[2] (line 17): unknown cluster 'slow'"),
        (GOOD.replace("power = 2.0", "power = 0"), "p.toml", "clusters[1] (line 4): power must be > 0, got 0"),
        (GOOD.replace("[1.0, 1.0, 0.5]", "[1.0, 0, 0.5]"), "p.toml", "clusters[2] (line 9): power of node 2 must be > 0"),
        (GOOD.replace("nodes = 4", "nodes = 2.5"), "p.toml", "nodes must be a whole number"),
        (GOOD.replace("bandwidth = 20", "bandwidth = -1"), "p.toml", "links[2] (line 17): bandwidth must be > 0"),
        (GOOD.rsplit("[[links]]", 1)[0], "p.toml", "cluster 'mixed' has no link"),
        (GOOD + '\n[[links]]\ncluster = "fast"\nbandwidth = 1\n', "p.toml", "cluster 'fast' has a second link"),
        ("[[clusters]\n", "p.toml", "not valid TOML"),
        ('{"clusters": [}', "p.json", "p.json:1: not valid JSON"),
        ('{"clusters": [{"name": "a", "nodes": 1}], "links": [{"cluster": "a", "bandwidth": 1, "x": 2}]}', "p.json",
         "unknown key 'x'"),
    ],
)
def test_bad_platform_file_is_one_line_exit_2(tmp_path, capsys, text, name, message):
    path = _write(tmp_path, text, name)
    assert main(["federation", "platform", "show", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {path}") and message in err


def test_job_wider_than_the_federation_is_one_line_exit_2(tmp_path, capsys):
    small = _write(tmp_path, GOOD)  # 7 nodes; HPC2N's first 100 jobs include wider ones
    out = tmp_path / "run"
    rc = main(["federation", "run", str(trace_path("HPC2N-2002-2.2-cln.swf.gz")), "--platform", small, "--method", "jpr",
               "--package-size", "10", "--jobs", "100", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "needs" in err and "the federation 'two' has 7" in err
    assert not out.exists()  # nothing written


def test_run_json_and_compare(tmp_path, capsys):
    trace = str(trace_path("HPC2N-2002-2.2-cln.swf.gz"))
    args = ["federation", "run", trace, "--method", "ga-metl", "--package-size", "30", "--jobs", "60",
            "--generations", "3", "--pop", "8", "--out", str(tmp_path / "r"), "--json"]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"method", "makespan", "jobs", "package_size", "seconds"}
    assert (d["method"], d["jobs"], d["package_size"]) == ("ga-metl", 60, 30) and d["makespan"] > 0
    assert main(args) == 0  # the finished run folder is read back
    assert json.loads(capsys.readouterr().out)["makespan"] == d["makespan"]
    assert main(args[:-1] + ["--pop", "10", "--json"]) == 2  # same folder, other config
    assert "different config" in capsys.readouterr().err
    cmp_args = ["federation", "compare", trace, "--jobs", "60", "--workloads", "2", "--package-size", "30",
                "--package-size", "60", "--generations", "2", "--pop", "6", "--workers", "1", "--out", str(tmp_path / "cmp")]
    assert main(cmp_args) == 0
    table = (tmp_path / "cmp" / "table.md").read_text()
    assert "### packages of 30 jobs" in table and "| Wk-2 |" in table and "GA-METL vs METL (%)" in table
    rows = json.loads((tmp_path / "cmp" / "results.json").read_text())
    assert len(rows) == 2 * 2 * 5
    for size in (30, 60):
        for wk in ("Wk-1", "Wk-2"):
            mk = {r["method"]: r["makespan"] for r in rows if r["package_size"] == size and r["workload"] == wk}
            assert mk["ga-metl"] <= mk["metl"]
    # every schedule of the comparison, read back from its run folder, through the federated validator
    from schedlab.federation.platform import default_platform
    from schedlab.federation.validate import validate_federated
    from schedlab.optimize.federation_ga import FederationGAConfig
    from schedlab.optimize.federation_run import FederationRunConfig, run_federation
    from schedlab.workload.spec import TraceSpec

    for r in rows:
        cfg = FederationRunConfig(TraceSpec(trace), method=r["method"], package_size=r["package_size"], jobs=60,
                                  offset=r["offset"], ga=FederationGAConfig(generations=2, pop=6, seed=1))
        res = run_federation(cfg, default_platform(), tmp_path / "cmp" / f"p{r['package_size']}" / r["workload"] / r["method"])
        validate_federated(res.schedule)
        assert res.schedule.makespan == pytest.approx(r["makespan"])
    for png in ("makespan_p30.png", "makespan_p60.png", "ga_by_package_size.png"):
        assert (tmp_path / "cmp" / png).read_bytes()[:4] == b"\x89PNG"
    assert "GA-Random CPU (s)" in table and all(r["cpu_seconds"] >= 0 for r in rows)
    # --report-only: an unfinished run is left out and listed, not run; the rest is reported as before
    unfinished = tmp_path / "cmp" / "p60" / "Wk-2" / "ga-random" / "result.json"
    unfinished.unlink()
    capsys.readouterr()
    assert main(cmp_args + ["--report-only"]) == 0
    assert "not finished (left out): p60 Wk-2 ga-random" in capsys.readouterr().out and not unfinished.exists()
    again = json.loads((tmp_path / "cmp" / "results.json").read_text())
    assert again == [r for r in rows if (r["package_size"], r["workload"], r["method"]) != (60, "Wk-2", "ga-random")]
    assert main(["federation", "compare", trace, "--jobs", "60", "--workloads", "1", "--methods", "jpr,nope",
                 "--out", str(tmp_path / "c2")]) == 2
    capsys.readouterr()
    # --report-only on a folder that holds no comparison: one line, exit 2, nothing written
    assert main(cmp_args[:-1] + [str(tmp_path / "none"), "--report-only"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none: no comparison folder to report on" in err
    assert not (tmp_path / "none").exists()


def test_given_communication_attributes(tmp_path, capsys):
    from schedlab.optimize.federation_run import FederationRunConfig, load_jobs
    from schedlab.workload.spec import TraceSpec

    trace = str(trace_path("HPC2N-2002-2.2-cln.swf.gz"))
    drawn = load_jobs(FederationRunConfig(TraceSpec(trace), method="jpr", package_size=5, jobs=5))
    comm = tmp_path / "comm.csv"
    comm.write_text("id,sigma,ptbw\n" + "".join(f"{i},{0.1 * k},{k + 1}\n" for k, i in enumerate(drawn.id)))
    given = load_jobs(FederationRunConfig(TraceSpec(trace), method="jpr", package_size=5, jobs=5, comm_file=str(comm)))
    assert given.sigma.tolist() == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4]) and given.ptbw.tolist() == [1, 2, 3, 4, 5]
    assert given.tasks.tolist() == drawn.tasks.tolist() and not np.allclose(given.sigma, drawn.sigma)
    args = ["federation", "run", trace, "--method", "jpr", "--package-size", "5", "--jobs", "6", "--comm", str(comm),
            "--out", str(tmp_path / "r")]
    assert main(args) == 2  # the 6th job has no line
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{comm}: no line for job" in err and "1 job(s) of the window missing" in err
    comm.write_text("id,sigma,ptbw\n1,0.5\n")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{comm}:2: expected id,sigma,ptbw" in err


@pytest.mark.slow  # three federation runs in fresh processes, one killed
def test_sigkill_then_same_command_ends_like_uninterrupted(tmp_path):
    """A GA run killed with SIGKILL mid-package resumes from its last checkpoint to the identical result,
    whatever the checkpoint interval (--checkpoint-every)."""
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-c", "import sys; from schedlab.cli.main import main; sys.exit(main())", "federation", "run",
           str(trace_path("HPC2N-2002-2.2-cln.swf.gz")), "--method", "ga-random", "--package-size", "30",
           "--jobs", "60", "--generations", "300", "--pop", "10", "--seed", "2"]
    assert subprocess.run(cmd + ["--out", str(tmp_path / "whole")], capture_output=True, timeout=600).returncode == 0
    killed = tmp_path / "killed"
    victim = subprocess.Popen(cmd + ["--out", str(killed), "--checkpoint-every", "20"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint, seen, deadline = killed / "checkpoint", set(), time.time() + 300
    while time.time() < deadline and len(seen) < 2:  # package 0 done, then a checkpoint inside package 1
        if (killed / "packages.csv").exists() and checkpoint.exists():
            seen.add(checkpoint.stat().st_mtime_ns)
        time.sleep(0.002)
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    assert not (killed / "result.json").exists() and len(seen) == 2
    assert subprocess.run(cmd + ["--out", str(killed)], capture_output=True, timeout=600).returncode == 0

    def history(folder):  # without the elapsed column
        return [line.rsplit(",", 1)[0] for line in (folder / "history.csv").read_text().splitlines()]

    assert history(killed) == history(tmp_path / "whole") and len(history(killed)) == 1 + 2 * 300
    for name in ("orders.json", "result.json"):
        a, b = (json.loads((f / name).read_text()) for f in (killed, tmp_path / "whole"))
        if name == "result.json":
            a, b = ({k: v for k, v in d.items() if "seconds" not in k and k != "workers_choice"}  # timings
                    for d in (a, b))
        assert a == b

"""The federation run's kernel warm-up (slowdown-guided-ga-federation; issue 34 item 4): everything the GA
calls is compiled before its generations are timed."""

from __future__ import annotations

from conftest import trace_path

HPC2N = "HPC2N-2002-2.2-cln.swf.gz"


def test_warm_up_compiles_the_population_fitness(monkeypatch):
    # the GA evaluates its population with PackageProblem.makespans: compiled inside the first GA's timed
    # generations unless the warm-up calls it (the time cost of Figs. 1-3 would then include compilation)
    from schedlab.federation.platform import default_platform
    from schedlab.federation.schedule import PackageProblem
    from schedlab.optimize import federation_run as fr

    cfg = fr.FederationRunConfig(trace=str(trace_path(HPC2N)), method="ga-random", package_size=5, jobs=5)
    calls = []
    original = PackageProblem.makespans
    monkeypatch.setattr(PackageProblem, "makespans", lambda self, X: (calls.append(X.shape), original(self, X))[1])
    fr._warm_up(fr.load_jobs(cfg), default_platform(), cfg)
    assert calls == [(1, 1)]

"""What drives a fuzzy rule base on a trace: strategies, features and winning rules, by time.

Issue 45 item 3 (GF Fig. 7): why the CTC-trained symbiotic base collapses on SDSC00. For each
trace (prepared as `schedlab rules show` prepares it), the base is simulated once with its
features recorded (`simulate_rulebase(..., record_features=True)`, the same call as `rules show`),
and the script prints, as markdown:

- the strategies in force: share of passes and share of the trace's time (a pass holds until the next);
- the seven features at the passes (10/50/90 % quantiles);
- the rule of largest membership phi_i (Eq. 5) at each pass: the rules that win most passes,
  with their SD and U_m centres +- widths and the strategy each recommends most;
- the median features under each strategy in force;
- per tenth of the trace's passes (by time): the leading strategy, the others, the strategy switches, median SD and U_m, and the
  mean wait of the jobs started in that tenth.

Usage (from the repository root):

    python benchmarks/experiments/gf/rules_drivers.py docs/results/rules/symbiotic-CTC430/best.json \
        ../shared/workloads/SDSC-SP2-1998-4.2-cln.swf.gz --scale-to 1024 --calibrate-load

Runs nothing else and writes nothing; the numbers come from schedlab's own simulation.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from schedlab.cli.options import TraceOptions
from schedlab.sim.rulebase import simulate_rulebase
from schedlab.strategy import rules as R


def log_memberships(rb, X: np.ndarray) -> np.ndarray:
    """log phi_i(x) for every pass (columns of X) and rule: (passes, rules), no underflow."""
    x = X.T[:, None, :]  # passes x 1 x features
    c, s = rb.centre[None], rb.width[None]
    return np.sum(-((x - c) ** 2) / (2 * s ** 2) - np.log(s * math.sqrt(2 * math.pi)), axis=2)


def report(rb, trace: str, opts: TraceOptions) -> str:
    w = opts.load(trace)
    s = simulate_rulebase(w, w.machine_procs, rb, record_features=True)
    plan = s.plan
    t, codes, X = plan.times, plan.codes, plan.features
    span = np.diff(np.append(t, max(t[-1], float(np.max(s.finish)))))
    out = [f"### {w.name} ({len(w):,} jobs, {w.machine_procs} processors; {t.size:,} passes)", ""]
    out += ["| strategy | passes | time |", "|---|---|---|"]
    for c in np.argsort(-np.bincount(codes, minlength=R.N_STRATEGIES)):
        n = int(np.sum(codes == c))
        if n:
            out.append(f"| {R.STRATEGIES[c]} | {100 * n / codes.size:.1f} % | {100 * span[codes == c].sum() / span.sum():.1f} % |")
    out += ["", "| feature | 10 % | 50 % | 90 % |", "|---|---|---|---|"]
    for i, f in enumerate(R.FEATURES):
        q = np.quantile(X[i], [0.1, 0.5, 0.9])
        out.append(f"| {f} | {q[0]:.1f} | {q[1]:.1f} | {q[2]:.1f} |")
    out += ["", "| strategy in force | passes | " + " | ".join(f"{f} median" for f in R.FEATURES) + " |",
            "|---|---|" + "---|" * R.N_FEATURES]
    for c in np.argsort(-np.bincount(codes, minlength=R.N_STRATEGIES)):
        m = codes == c
        if m.any():
            out.append(f"| {R.STRATEGIES[c]} | {int(m.sum()):,} | " + " | ".join(f"{np.median(X[i, m]):.1f}" for i in range(R.N_FEATURES)) + " |")
    win = np.argmax(log_memberships(rb, X), axis=1)
    out += ["", "| rule (largest phi) | passes | SD centre +- width | U_m centre +- width | recommends most | strategy in force on its passes |",
            "|---|---|---|---|---|---|"]
    for r in np.argsort(-np.bincount(win, minlength=rb.n_rules))[:6]:
        m = win == r
        if not m.any():
            break
        rec = rb.recommend[r]
        best = ", ".join(R.STRATEGIES[k] for k in np.flatnonzero(rec == rec.max()))
        top = np.bincount(codes[m], minlength=R.N_STRATEGIES).argmax()
        out.append(f"| {r + 1} | {100 * m.mean():.1f} % | {rb.centre[r, 0]:.1f} +- {rb.width[r, 0]:.2f} | "
                   f"{rb.centre[r, 1]:.1f} +- {rb.width[r, 1]:.2f} | {best} | {R.STRATEGIES[top]} {100 * np.mean(codes[m] == top):.0f} % |")
    wait = s.start - w.submit
    started = s.start
    edges = np.quantile(t, np.linspace(0, 1, 11))
    switches = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    out += ["", f"strategy switches: {switches.size:,}", "",
            "| tenth of the passes | days | leading strategy | passes not under it | switches | SD median | U_m median | jobs started | mean wait of those [h] |",
            "|---|---|---|---|---|---|---|---|---|"]
    for k in range(10):
        lo, hi = edges[k], edges[k + 1]
        m = (t >= lo) & ((t < hi) if k < 9 else (t <= hi))
        j = (started >= lo) & ((started < hi) if k < 9 else (started <= hi))
        if not m.any():
            continue
        top = np.bincount(codes[m], minlength=R.N_STRATEGIES).argmax()
        sw = int(np.sum((t[switches] >= lo) & ((t[switches] < hi) if k < 9 else (t[switches] <= hi))))
        others = ", ".join(f"{R.STRATEGIES[c]} {100 * np.mean(codes[m] == c):.1f} %" for c in np.unique(codes[m]) if c != top) or "-"
        out.append(f"| {k + 1} | {lo / 86400:.0f}-{hi / 86400:.0f} | {R.STRATEGIES[top]} {100 * np.mean(codes[m] == top):.0f} % | {others} | {sw:,} | "
                   f"{np.median(X[0, m]):.1f} | {np.median(X[1, m]):.1f} | {int(j.sum()):,} | "
                   f"{wait[j].mean() / 3600 if j.any() else float('nan'):.1f} |")
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rulebase")
    p.add_argument("traces", nargs="+")
    p.add_argument("--scale-to", type=int)
    p.add_argument("--calibrate-load", action="store_true")
    p.add_argument("--procs", type=int)
    a = p.parse_args()
    rb = R.load_rulebase(a.rulebase)
    if not isinstance(rb, R.FuzzyRuleBase):
        raise SystemExit(f"{a.rulebase}: a fuzzy rule base is needed (the winning-rule table)")
    opts = TraceOptions(procs=a.procs, scale_to=a.scale_to, calibrate_load=a.calibrate_load)
    print(f"rule base: {a.rulebase} ({rb.label})\n")
    for tr in a.traces:
        print(report(rb, tr, opts) + "\n")


if __name__ == "__main__":
    main()

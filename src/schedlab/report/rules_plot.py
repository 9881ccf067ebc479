"""Figure of a rule-based simulation: which of the 13 strategies was in force over time."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..strategy import rules as R


def strategy_timeline(plan, path: str | Path, *, title: str = "", unix_start: float | None = None) -> Path:
    """Strategy in force per pass over simulated time (days), the share of passes per strategy
    beside it, and U_m / SD when the plan recorded the features. Written atomically as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .run_report import _save_figure

    t = (np.asarray(plan.times) - (plan.times[0] if len(plan.times) else 0.0)) / 86400.0
    codes = np.asarray(plan.codes)
    used = np.unique(codes)
    rows = 3 if plan.features is not None else 1
    fig, axes = plt.subplots(rows, 2, figsize=(13, 3.2 + 2.2 * (rows - 1)), squeeze=False,
                             gridspec_kw={"width_ratios": [4, 1]}, sharex="col")
    ax = axes[0, 0]
    cmap = plt.get_cmap("tab20")
    for c in used:
        sel = codes == c
        ax.scatter(t[sel], np.full(sel.sum(), c), s=4, color=cmap(c % 20), marker="|")
    ax.set_yticks(range(R.N_STRATEGIES))
    ax.set_yticklabels(R.STRATEGIES, fontsize=7)
    ax.set_ylim(-0.5, R.N_STRATEGIES - 0.5)
    ax.set_ylabel("strategy in force")
    ax.set_title(title or "strategy chosen at every scheduling pass")
    share = np.bincount(codes, minlength=R.N_STRATEGIES) / max(codes.size, 1)
    axes[0, 1].barh(range(R.N_STRATEGIES), 100 * share, color=[cmap(c % 20) for c in range(R.N_STRATEGIES)])
    axes[0, 1].set_yticks(range(R.N_STRATEGIES))
    axes[0, 1].set_yticklabels([])
    axes[0, 1].xaxis.set_tick_params(labelbottom=True)  # sharex="col" would hide them above the empty cells
    axes[0, 1].set_xlim(0, 100)
    axes[0, 1].set_xlabel("% of passes")
    if plan.features is not None:
        axes[1, 0].plot(t, plan.features[1], lw=0.4, color="tab:blue")
        axes[1, 0].set_ylabel("U_m (%)")
        axes[2, 0].plot(t, plan.features[0], lw=0.6, color="tab:red")
        axes[2, 0].set_ylabel("SD")
        axes[1, 0].set_title("U_m: momentary utilisation, busy processors / m", fontsize="small")
        axes[2, 0].set_title("SD: average weighted slowdown of the jobs finished so far, in [1, 100]", fontsize="small")
        axes[2, 0].set_xlabel("days since the first pass")
        for r in (1, 2):
            axes[r, 1].axis("off")
    else:
        axes[0, 0].set_xlabel("days since the first pass")
    fig.tight_layout()
    path = Path(path)
    _save_figure(fig, path)
    plt.close(fig)
    return path

"""Files of a grid Pareto run: front/points/history CSV, the front figure and the hypervolume curve.

nsga2-grid-performance-bounds, Section 5.4 (Figures 3-6): the front of AWRT_1 vs AWRT_2 with the
no-exchange (EASY), POOL and RQ points and the *area of benefit* (between the origin and the
EASY point) shaded; plus the hypervolume of the front over the generations.
"""

from __future__ import annotations

import csv
import io
from typing import Sequence

import numpy as np

from .._atomic import save_figure_atomic


def _csv(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def history_csv(rows: Sequence[dict]) -> str:
    """One row per generation: gen, evaluations, hypervolume, front size, feasible, best AWRT_k, elapsed."""
    if not rows:
        return ""
    keys = list(rows[0])
    return _csv(keys, [[repr(r[k]) if isinstance(r[k], float) else r[k] for k in keys] for r in rows])


def points_csv(points: Sequence[dict], K: int) -> str:
    """Every evaluated partition: gen, feasible, AWRT_1..AWRT_K (1e12 = infeasible, the paper's 'infinite')."""
    keys = ["gen", "feasible", *(f"AWRT_{k + 1}" for k in range(K))]
    return _csv(keys, [[p["gen"], int(p["feasible"]), *(repr(p[f"AWRT_{k + 1}"]) for k in range(K))] for p in points])


def front_csv(F: np.ndarray, X: np.ndarray, origin: np.ndarray, names: Sequence[str]) -> str:
    """The final front: AWRT per site, jobs per site and jobs moved away from their origin."""
    K = len(names)
    keys = [*(f"AWRT_{n}" for n in names), *(f"jobs_{n}" for n in names), "migrated"]
    rows = []
    for f, x in zip(F, X):
        rows.append([*(repr(float(v)) for v in f), *(int(np.sum(x == k)) for k in range(K)), int(np.sum(x != origin))])
    return _csv(keys, rows)


def reference_rows(references: dict[str, dict]) -> list[list]:
    """(policy, AWRT per site..., overall AWRT) rows of the EASY/POOL/RQ reference simulations."""
    return [[name, *(s["AWRT"] for s in ref["sites"]), ref["AWRT"]] for name, ref in references.items()]


def points_table_md(F: np.ndarray, references: dict[str, dict], names: Sequence[str]) -> str:
    """A Markdown table of all points: the reference heuristics, then every front point."""
    head = "| point | " + " | ".join(f"AWRT {n} (s)" for n in names) + " |\n"
    head += "|---|" + "---|" * len(names) + "\n"
    lines = [f"| {p} | " + " | ".join(f"{v:,.0f}" for v in vals[: len(names)]) + " |" for p, *vals in reference_rows(references)]
    lines += [f"| front {i + 1} | " + " | ".join(f"{v:,.0f}" for v in f) + " |" for i, f in enumerate(F)]
    return head + "\n".join(lines) + "\n"


def _save(fig, path) -> None:
    """Save a figure as PNG atomically."""
    save_figure_atomic(fig, path, dpi=120)


def plot_front(path, F: np.ndarray, references: dict[str, dict], names: Sequence[str], points=None) -> None:
    """Front AWRT_1 vs AWRT_2 with EASY, POOL and RQ marked and the area of benefit shaded (K = 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    easy = references.get("none")
    if easy is not None:
        e = [s["AWRT"] for s in easy["sites"]]
        ax.fill_between([0, e[0]], 0, e[1], color="tab:green", alpha=0.12, label="area of benefit")
    if points is not None and len(points):
        ax.scatter(points[:, 0], points[:, 1], s=3, color="0.8", label="evaluated (feasible)")
    if len(F):
        ax.plot(F[:, 0], F[:, 1], "o-", ms=3, lw=1, color="tab:blue", label="NSGA-II front")
    marks = {"none": ("s", "black", "EASY (no exchange)"), "pool": ("^", "tab:orange", "POOL"), "rq": ("D", "tab:red", "RQ")}
    for key, (marker, color, label) in marks.items():
        if key in references:
            a = [s["AWRT"] for s in references[key]["sites"]]
            ax.scatter([a[0]], [a[1]], marker=marker, s=60, color=color, zorder=5, label=label)
    ax.set_xlabel(f"AWRT {names[0]} (s)")
    ax.set_ylabel(f"AWRT {names[1]} (s)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(" + ".join(names))
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_hypervolume(path, history: Sequence[dict], ref: Sequence[float]) -> None:
    """Hypervolume of the feasible front per generation (reference point ``ref``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot([r["gen"] for r in history], [r["hypervolume"] for r in history], color="tab:blue")
    ax.set_xlabel("generation")
    ax.set_ylabel(f"hypervolume (ref = {', '.join(f'{v:,.0f}' for v in ref)})")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def front_vs_references(F: np.ndarray, references: dict[str, dict]) -> dict[str, dict]:
    """Where each heuristic lies relative to the front (Section 5.4: 'RQ lies on the front').

    Per policy: ``dominated`` (some front point is at least as good for every site and better for
    one), ``dominates`` (front points it dominates), and ``gap`` = min over front points of
    max_k (F_k - H_k) / H_k: <= 0 means a front point is at least as good on every site; a small
    positive gap means the heuristic lies just beyond (below) the front by that fraction.
    """
    out = {}
    F = np.asarray(F, dtype=np.float64)
    for name, ref in references.items():
        h = np.array([s["AWRT"] for s in ref["sites"]], dtype=np.float64)
        if F.size == 0:
            out[name] = {"AWRT": h.tolist(), "dominated": False, "dominates": 0, "gap": None}
            continue
        le = np.all(F <= h, axis=1) & np.any(F < h, axis=1)
        ge = np.all(F >= h, axis=1) & np.any(F > h, axis=1)
        gap = float(np.min(np.max((F - h) / h, axis=1)))
        out[name] = {"AWRT": h.tolist(), "dominated": bool(le.any()), "dominates": int(ge.sum()), "gap": gap}
    return out

"""Rebuild the committed run reports from their stored files, without re-running any optimization.

    .venv/bin/python docs/results/regenerate.py

For every run folder here with config.json, history.csv, comparison.json and best.json:
config.json's trace paths become the relative paths the runs were started with
(``../shared/workloads/NAME``, see each run.log), then report.html, convergence.png and
awrt_groups.png are rewritten by :func:`schedlab.report.run_report.regenerate_run_report`.
Folders lacking one of those files are listed and left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from schedlab.report.run_report import regenerate_run_report, trace_label

HERE = Path(__file__).resolve().parent
NEEDED = ("config.json", "history.csv", "comparison.json", "best.json")


def relative_traces(config_path: Path) -> None:
    config = json.loads(config_path.read_text())
    traces = config.get("traces", [])
    fixed = [f"../shared/workloads/{trace_label(t)}" if str(t).startswith("/") else t for t in traces]
    if fixed != traces:
        config["traces"] = fixed
        config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def main() -> None:
    for folder in sorted(p.parent for p in HERE.rglob("config.json")):
        if (folder / "config.json").exists():
            relative_traces(folder / "config.json")
        missing = [n for n in NEEDED if not (folder / n).exists()]
        kind = json.loads((folder / "config.json").read_text()).get("kind")
        if kind != "greedy":
            continue
        if missing:
            print(f"{folder.relative_to(HERE)}: no report (missing {', '.join(missing)})")
            continue
        regenerate_run_report(folder)
        print(f"{folder.relative_to(HERE)}: report.html, convergence.png, awrt_groups.png rewritten")


if __name__ == "__main__":
    main()

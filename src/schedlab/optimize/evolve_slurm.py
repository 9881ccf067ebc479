"""Tune a site's own Slurm configuration for an owner's objective: the driver behind `schedlab evolve slurm`.

Issue 37, item 4. The optimizer (``es`` or ``cmaes``, as ``evolve greedy`` selects it) searches
Slurm's parameter space (:data:`schedlab.slurm.tuning.SPACE`: the five priority weights,
PriorityDecayHalfLife, PriorityMaxAge, bf_window, bf_max_job_test and the QOS priority of each of
the owner's user groups) through the same run loop and run folder as every optimizer
(:func:`schedlab.optimize.run.optimize`: checkpointed every generation, resumable, ``--extend``,
seeded, any executor). Its first point is the site's current configuration (``x0``).

A candidate is the site's slurm.conf excerpt with the searched settings replaced
(:func:`schedlab.slurm.tuning.apply`), simulated by ``--policy slurm`` on every training workload;
its value is the sum of the objective over them (as ``evolve greedy``). User groups are the
accounts (``account_from=group`` unless ``--slurm-option`` says otherwise) and each group's jobs
run under the group's QOS (:func:`schedlab.slurm.tuning.with_group_qos`).

The traces are prepared as ``evolve greedy`` prepares them (:func:`schedlab.optimize.evolve.prepare`:
the trace options, ``--split-months``, ``--test``, EASY once per workload). A finished run writes
``slurm.conf.fragment``, ``sacctmgr.sh``, ``comparison.json`` and a report (``report.md``,
``report.html``): the site's current configuration, the tuned one, EASY and (given) an evolved
greedy strategy on the training and held-out workloads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..metrics.objective import DEFAULT_OBJECTIVE, Objective
from ..slurm.policy import SlurmPolicy
from ..slurm.tuning import SPACE, SlurmEncoding, apply, apply_limits, current_values, knobs, qos_priorities
from ..workload.spec import TraceSpec
from .evolve import EvolveConfig, heldout_config, heldout_extra, train_test_comparison, training_identity
from .greedy import TrainingSet
from .heldout import HeldOut
from .run import RunFolder, RunResult, optimize
from .settings import DEFAULT_EXECUTOR, DEFAULT_SEED, NOT_GIVEN, renamed_executor, takes_trace_spec
from .versus_easy import COLLATERAL_KEYS, collateral, gain_pct, ratio_text

#: the run kind in config.json (``schedlab.optimize.run`` names its verb)
KIND = "slurm-tune"
#: keys of ``evolve greedy``'s config that do not belong to a Slurm tuning run
#: config.json's ``optimizer_settings.x0`` of a Slurm tuning run, by optimizer ({} the slurm.conf's
#: file name): how the optimizer uses the site's configuration it is given as ``x0`` (optimize/es.py,
#: optimize/cmaes.py); another registered optimizer gets it as its ``x0`` argument
START_READINGS = {"es": "the site's current configuration ({}): the first point of the first generation, the "
                        "others uniform in the box",
                  "cmaes": "the site's current configuration ({}): the mean of the first generation's distribution"}
START_READING = "the site's current configuration ({}), given to the optimizer as x0"
_GREEDY_ONLY = ("procedure", "gene_scale", "dispatch", "procedure_reading")
#: the schedules of the final comparison, in the report's order
SCHEDULES = ("EASY", "current", "tuned", "greedy")


@takes_trace_spec
@dataclass(frozen=True)
class SlurmTuneConfig:
    """Everything that determines a Slurm tuning run's result (stored in config.json, the conf by its text)."""

    traces: tuple[str, ...]
    slurm_conf: str
    #: parsed on construction (:meth:`Objective.of`); config.json stores its text
    objective: Objective = DEFAULT_OBJECTIVE  # type: ignore[assignment]  (text accepted, parsed)
    generations: int = 30
    mu: int = 6
    lam: int = 12
    optimizer: str = "cmaes"
    seed: int = DEFAULT_SEED
    #: the searched parameters, comma-separated names of SPACE (None: all)
    params: str | None = None
    slurm_shares: str | None = None
    #: ``--slurm-option NAME=VALUE,...`` (named readings of docs/slurm-policy-spec.md section 8)
    slurm_option: str | None = None
    test: tuple[str, ...] = ()
    #: ``--slurm-qos``: the site's ``sacctmgr -P show qos`` dump (the QOS priorities and limits in force;
    #: a ``ugK:KEY`` parameter starts from its limit there). None: no QOS limits, priorities 0
    slurm_qos: str | None = None
    #: how every trace is prepared (the trace options, ``--split-months`` among them), as ``evolve greedy``'s
    #: :attr:`EvolveConfig.trace_spec <schedlab.optimize.evolve.EvolveConfig.trace_spec>`
    trace_spec: TraceSpec = TraceSpec()

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", Objective.of(self.objective))
        object.__setattr__(self, "traces", tuple(self.traces))
        object.__setattr__(self, "test", tuple(self.test))
        self.loading()  # the ES settings and the trace options, checked as evolve greedy checks them
        knobs(self.params)

    def loading(self) -> EvolveConfig:
        """The same settings as ``evolve greedy`` reads them: how the traces are prepared and held out."""
        return EvolveConfig(traces=self.traces, objective=self.objective, generations=self.generations, mu=self.mu,
                            lam=self.lam, optimizer=self.optimizer, seed=self.seed, test=self.test,
                            trace_spec=self.trace_spec)

    def to_dict(self, setup: "SlurmSetup") -> dict[str, Any]:
        d = self.loading().to_dict()
        for key in _GREEDY_ONLY:
            d.pop(key, None)
        d["kind"] = KIND
        # the search starts from the site's configuration (evolve_slurm passes x0), not the optimizer's
        # default start (cmaes: the box centre): config.json states the start that ran (issue 43 item 7)
        d["optimizer_settings"] = dict(d["optimizer_settings"], x0=START_READINGS.get(self.optimizer, START_READING).format(
            Path(self.slurm_conf).name))
        d["slurm_conf"] = Path(self.slurm_conf).name  # a label; the text is what the run is bound to
        d["slurm_conf_text"] = setup.conf_text
        d["slurm_options"] = setup.base.options.to_dict()
        if setup.base.shares:
            d["slurm_shares"] = dict(sorted(setup.base.shares.items()))
        d["params"] = [k.name for k in setup.encoding.knobs]
        site = [k for k in setup.encoding.knobs if k.kind in ("partition", "qos_limit")]
        d["space"] = [[k.name, k.low, k.high, k.scale] for k in (*SPACE, *site)]  # (a site's knobs only when searched)
        if self.slurm_qos is not None:
            d["slurm_qos"] = Path(self.slurm_qos).name
            d["slurm_qos_text"] = setup.qos_text
        return d


@dataclass(frozen=True, eq=False)
class SlurmPayload:
    """The executor payload: the training set (workloads with their groups' QOS) and the site's policy."""

    training: TrainingSet
    base: SlurmPolicy


def tuned_policy(base: SlurmPolicy, values: dict[str, float], label: str = "tuned slurm") -> SlurmPolicy:
    """``base`` with the settings ``values`` (:func:`schedlab.slurm.tuning.apply`), the groups' QOS priorities
    and the QOS limits among them (:func:`schedlab.slurm.tuning.apply_limits`)."""
    return replace(base, conf=apply(base.conf, values), qos_priority=qos_priorities(values),
                   limits=apply_limits(base.limits, values), label=label)


def policy_value(payload: SlurmPayload, policy: SlurmPolicy) -> float:
    """Sum over the training workloads of the objective of ``policy``'s schedule, EASY's metrics for
    ``EASY_*`` (:meth:`schedlab.optimize.greedy.TrainingSet.value`, the one place it is summed)."""
    from ..slurm.policy import simulate_slurm

    return payload.training.value(lambda w, m: simulate_slurm(w, m, policy))


@dataclass(frozen=True)
class SlurmEvaluator:
    """``evaluator(payload, x)``: the objective of the site's configuration with the settings decoded from x."""

    encoding: SlurmEncoding

    def __call__(self, payload: SlurmPayload, x) -> float:
        return policy_value(payload, tuned_policy(payload.base, self.encoding.decode(x)))


@dataclass(frozen=True, eq=False)
class SlurmSetup:
    """What :func:`prepare` checked and built before any run folder is touched."""

    payload: SlurmPayload
    easy: list
    heldout: HeldOut | None
    base: SlurmPolicy
    encoding: SlurmEncoding
    current: dict[str, float]
    conf_text: str
    #: the ``--slurm-qos`` dump's text ('' without one)
    qos_text: str = ""


def base_policy(config: SlurmTuneConfig) -> tuple[SlurmPolicy, str]:
    """The site's current configuration as a policy (and the excerpt's text); a bad line is ``FILE:LINE: problem``."""
    from ..slurm.conf import SlurmConfError, read_conf, read_shares
    from ..slurm.policy import SlurmOptions, parse_option_pairs

    conf = read_conf(config.slurm_conf)
    try:
        text = Path(config.slurm_conf).read_text(encoding="utf-8")
    except OSError as exc:  # read_conf read it a moment ago
        raise SlurmConfError(f"{config.slurm_conf}: cannot read slurm.conf excerpt: {exc.strerror or exc}") from None
    shares = read_shares(config.slurm_shares) if config.slurm_shares else None
    options = SlurmOptions(**{"account_from": "group", **parse_option_pairs(config.slurm_option or "")})
    qos = {}
    if config.slurm_qos is not None:  # the QOS priorities and limits in force
        from ..slurm.conf import read_qos
        from ..slurm.limits import load_limits

        qos = dict(qos_priority=read_qos(config.slurm_qos), limits=load_limits(config.slurm_qos))
    return SlurmPolicy(conf, options, shares=shares, label="current slurm", **qos), text


def prepare(config: SlurmTuneConfig) -> SlurmSetup:
    """Validate everything that can be bad input BEFORE touching a run folder: the slurm.conf excerpt, the
    shares, the options, the searched parameters, the traces (prepared and held out as ``evolve greedy``
    does), the objective on EASY, and the site's configuration simulated once on every workload (a job
    in no partition is an error naming it)."""
    from ..slurm.tuning import with_group_qos
    from .evolve import prepare as prepare_greedy

    from ..slurm.tuning import SiteBounds, site_knobs

    base, text = base_policy(config)
    training, easy, heldout = prepare_greedy(config.loading())
    training = replace(training, workloads=tuple(with_group_qos(w) for w in training.workloads))
    if heldout is not None:
        heldout = replace(heldout, workloads=tuple(with_group_qos(w) for w in heldout.workloads))
    every = (*training.workloads, *(heldout.workloads if heldout is not None else ()))
    chosen = knobs(config.params, site_knobs(base.conf, SiteBounds.of(base.conf, every)))
    site = tuple(k for k in chosen if k.kind in ("partition", "qos_limit"))
    current = current_values(base.conf, base.qos_priority, site=site, limits=base.limits)
    encoding = SlurmEncoding(chosen, tuple((k, v) for k, v in current.items() if k not in {c.name for c in chosen}))
    payload = SlurmPayload(training, base)
    policy_value(payload, base)  # the site's configuration runs on the training workloads
    if heldout is not None:
        heldout.scores(base)  # ... and on the held-out ones
    qos_text = Path(config.slurm_qos).read_text(encoding="utf-8") if config.slurm_qos is not None else ""
    return SlurmSetup(payload, easy, heldout, base, encoding, current, text, qos_text)


@dataclass
class SlurmTuneResult:
    """The outcome of :func:`evolve_slurm`."""

    run_dir: Path
    values: dict[str, float] | None
    best_f: float
    interrupted: bool
    run: RunResult | None = None
    comparison: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    fragment: str = ""
    """slurm.conf.fragment's text"""
    versus_easy: list[dict[str, Any]] = field(default_factory=list)
    """the tuned configuration's rows against EASY (train and held-out), for report.html"""
    resources: list[dict[str, Any]] = field(default_factory=list)
    """utilisation per resource of the current and tuned configurations on the training workloads (:func:`resource_rows`)"""


def best_doc(values: dict[str, float], f: float) -> str:
    """best.json: the tuned settings (every row of SPACE) and their training objective."""
    return json.dumps({"kind": KIND, "objective_value": f, "settings": values}, indent=2) + "\n"


def evolve_slurm(
    config: SlurmTuneConfig,
    out: str | Path,
    *,
    executor: str | None = DEFAULT_EXECUTOR,
    workers: int | None = None,
    on_start: Callable[[str, int, int], None] | None = None,
    on_generation: Callable[[str, dict[str, Any]], None] | None = None,
    on_evaluation: Callable[[str, int, int], None] | None = None,
    extend: bool = False,
    greedy: Any = None,
    executor_spec: Any = NOT_GIVEN,
) -> SlurmTuneResult:
    """Run or resume a Slurm tuning run into run folder ``out``; when it finishes write the fragment,
    sacctmgr.sh, comparison.json and the report. ``greedy``: an evolved greedy strategy the report
    compares too (it does not change the run)."""
    from ..execute import make_executor
    from ..strategy.registry import make_optimizer

    setup = prepare(config)
    training, heldout, enc = setup.payload.training, setup.heldout, setup.encoding
    cfg = config.to_dict(setup)
    cfg.update(training_identity(training))
    cfg.update(heldout_config(config.loading(), heldout))
    run = RunFolder(out, cfg, budget=("generations",), extend=extend)
    label = "slurm"
    with make_executor(renamed_executor(executor, executor_spec, "evolve_slurm"), workers=workers,
                       payload=setup.payload) as executor:
        res = optimize(
            run,
            lambda: make_optimizer(config.optimizer, enc.lower, enc.upper, mu=config.mu, lam=config.lam,
                                   seed=config.seed, x0=enc.encode(setup.current)),
            SlurmEvaluator(enc),
            executor,
            config.generations,
            param_names=enc.names,
            best_json=lambda x, f: best_doc(enc.decode(x), f),
            on_start=(lambda total, done: on_start(label, total, done)) if on_start else None,
            on_generation=(lambda row: on_generation(label, row)) if on_generation else None,
            on_evaluation=(lambda g, e: on_evaluation(label, g, e)) if on_evaluation else None,
            **heldout_extra(heldout, lambda x: tuned_policy(setup.base, enc.decode(x))),
        )
    result = SlurmTuneResult(run.path, None, res.best_f, res.interrupted, res, config=cfg)
    if res.interrupted:
        return result
    result.values = enc.decode(res.best_x)
    write_outputs(run, setup, result, config, greedy)
    return result


def write_outputs(run: RunFolder, setup: SlurmSetup, result: SlurmTuneResult, config: SlurmTuneConfig,
                  greedy: Any = None) -> None:
    """slurm.conf.fragment, sacctmgr.sh, comparison.json and report.md of a finished run (report.html,
    with its figures, is drawn by the CLI: ``optimize`` does not import ``report``)."""
    from ..slurm.tuning import fragment_text, sacctmgr_text

    values = result.values
    fragment = fragment_text(values, setup.conf_text, source=Path(config.slurm_conf).name)
    run.write_text("slurm.conf.fragment", fragment)
    run.write_text("sacctmgr.sh", sacctmgr_text(values))
    if config.slurm_qos is not None or any(k.kind == "qos_limit" for k in setup.encoding.knobs):
        from ..slurm.tuning import qos_dump_text

        run.write_text("qos.tuned.txt", qos_dump_text({**(setup.base.qos_priority or {}), **qos_priorities(values)},
                                                      apply_limits(setup.base.limits, values)))
    schedules = {"current": setup.base, "tuned": tuned_policy(setup.base, values)}
    if greedy is not None:
        schedules["greedy"] = greedy
    per = {label: train_test_comparison(s, setup.payload.training, setup.easy, setup.heldout, config.objective)
           for label, s in schedules.items()}
    result.comparison = comparison_rows(per)
    run.write_text("comparison.json", json.dumps(result.comparison, indent=2, allow_nan=False) + "\n")
    result.fragment, result.versus_easy = fragment, per["tuned"]
    result.resources = resource_rows(setup.payload.training, {k: v for k, v in schedules.items() if k != "greedy"})
    run.write_text("report.md", report_markdown(result, setup, config))


def resource_rows(training: TrainingSet, policies: dict[str, SlurmPolicy]) -> list[dict[str, Any]]:
    """report.md's utilisation per resource (issue 47 item 4): per training workload and policy
    (current, tuned) the run's CPU_UTIL, GPU_UTIL, MEM_UTIL (:func:`schedlab.metrics.resources.resource_utilisation`);
    [] when the workloads carry no resources (the report as before)."""
    from ..metrics.resources import has_resources, resource_utilisation
    from ..slurm.policy import resources_modelled, simulate_slurm

    rows = []
    for w, m in zip(training.workloads, training.machines):
        for label, policy in policies.items():
            if getattr(w, "resources", None) is None and not any(resources_modelled(policy.conf, policy.options, w)):
                return []  # a CPU-only trace on the CPU-only path: has_resources would say no (no simulation for it)
            s = simulate_slurm(w, m, policy)
            if not has_resources(s):
                return []
            rows.append({"workload": w.name, "schedule": label, **resource_utilisation(s)})
    return rows


def comparison_rows(per: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per (set, workload, schedule) from each schedule's rows against EASY
    (:func:`schedlab.optimize.evolve.train_test_comparison`, ``current`` among them): EASY, the site's
    current configuration, the tuned one and (given) the greedy strategy, each with its objective,
    metrics, gain over EASY and over current, and its collateral against EASY (UTIL points, the worst
    group's AWRT ratio, the marks: :func:`schedlab.optimize.versus_easy.judged`)."""
    metrics = ("AWRT", "AWRT1", "AWRT2", "AWRT3", "AWRT4", "AWRT5", "UTIL")
    out = []
    for i, cur in enumerate(per["current"]):
        key = {"set": cur["set"], "workload": cur["workload"], "jobs": cur["jobs"], "procs": cur["procs"]}
        easy = dict(key, schedule="EASY", objective=cur["objective_easy"], **{m: cur[f"{m}_easy"] for m in metrics})
        easy.update(collateral(easy, easy), collateral=[])
        rows = [easy] + [dict(key, schedule=label, objective=r[i]["objective"], **{m: r[i][m] for m in metrics},
                              **{k: r[i][k] for k in COLLATERAL_KEYS}) for label, r in per.items()]
        for row in rows:
            row["gain_vs_easy_pct"] = gain_pct(easy["objective"], row["objective"])
            row["gain_vs_current_pct"] = gain_pct(cur["objective"], row["objective"])
        out += rows
    return out


def schedule_rows(comparison: Sequence[dict[str, Any]], schedule: str) -> list[dict[str, Any]]:
    """The rows of ``schedule`` (``tuned``, ``current``...) of :func:`comparison_rows` (comparison.json),
    in its (set, workload) order, each with the EASY row's metrics as ``METRIC_easy``: what the
    report's AWRT chart and ``schedlab plot RUN`` draw."""
    easy = {(r["set"], r["workload"]): r for r in comparison if r["schedule"] == "EASY"}
    return [dict(r, **{f"{m}_easy": v for m, v in easy[r["set"], r["workload"]].items()
                       if m.startswith(("AWRT", "UTIL", "objective"))})
            for r in comparison if r["schedule"] == schedule]


def _fmt(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{v:,.{digits}f}" if isinstance(v, float) else str(v)


def comparison_table_rows(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """(header, cells) of the report's table: AWRT in seconds (as every verb's table, issue 43), gains
    in %, UTIL in %."""
    head = ["set", "workload", "schedule", "objective", "vs EASY %", "vs current %",
            "AWRT1 s", "AWRT2 s", "AWRT s", "UTIL %", "UTIL vs EASY pts", "worst group AWRT vs EASY", "collateral"]
    # AWRT in seconds, as report.table.HEADINGS (optimize does not import report)
    cells = [[r["set"], r["workload"], r["schedule"], _fmt(r["objective"], 0), _fmt(r["gain_vs_easy_pct"]),
              _fmt(r["gain_vs_current_pct"]), _fmt(r["AWRT1"]), _fmt(r["AWRT2"]), _fmt(r["AWRT"]),
              _fmt(r["UTIL"]), _fmt(r.get("UTIL_diff_points")), ratio_text(r), "; ".join(r.get("collateral") or ()) or "ok"]
             for r in rows]
    return head, cells


def _resource_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """report.md's lines of :attr:`SlurmTuneResult.resources`; [] without them."""
    if not rows:
        return []
    names = [n for n in ("CPU_UTIL", "GPU_UTIL", "MEM_UTIL") if any(n in r for r in rows)]
    head = ["workload", "schedule", *(n.split("_")[0].replace("MEM", "memory") + " %" for n in names)]
    out = ["## Utilisation per resource (training workloads; docs/resources.md)", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join([r["workload"], r["schedule"], *(_fmt(r.get(n)) for n in names)]) + " |" for r in rows]
    return out + [""]


def report_markdown(result: SlurmTuneResult, setup: SlurmSetup, config: SlurmTuneConfig) -> str:
    """report.md: the setting of every searched parameter (current -> tuned) and the comparison table."""
    head, cells = comparison_table_rows(result.comparison)
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(c) + " |" for c in cells]
    searched = {k.name for k in setup.encoding.knobs}
    params = ["| parameter | current | tuned | searched range |", "|---|---|---|---|"]
    for k in (*SPACE, *(k for k in setup.encoding.knobs if k.kind in ("partition", "qos_limit"))):
        rng = f"{k.low:g} .. {k.high:g} {k.unit} ({k.scale})".replace("  ", " ") if k.name in searched else "fixed"
        if k.kind == "qos_limit":
            rng += "; -1: no limit"
        params.append(f"| {k.name} | {setup.current[k.name]:g} | {result.values[k.name]:g} | {rng} |")
    last = result.run.history[-1] if result.run and result.run.history else {}
    return "\n".join([
        f"# Tuned Slurm configuration — {config.objective}",
        "",
        f"Training traces: {', '.join(Path(t).name for t in config.traces)}"
        + (f" (first {config.trace_spec.split_months} months; the months after are held out)"
           if config.trace_spec.split_months else "")
        + (f"; held-out traces: {', '.join(Path(t).name for t in config.test)}" if config.test else "") + ".",
        f"Optimizer {config.optimizer}, mu={config.mu}, lambda={config.lam}, {last.get('gen', 0)} generations, "
        f"{last.get('evaluations', 0)} evaluations, seed {config.seed}; started from the site's configuration "
        f"({Path(config.slurm_conf).name}).",
        "",
        "## Settings",
        "",
        *params,
        "",
        "## Objective and metrics (lower objective is better; gains positive = better)",
        "",
        *table,
        "",
        "`current`: the site's slurm.conf as given; `tuned`: with slurm.conf.fragment and sacctmgr.sh applied; "
        "`EASY`: EASY backfilling" + ("; `greedy`: the evolved greedy strategy given with --greedy" if any(
            r["schedule"] == "greedy" for r in result.comparison) else "") + ".",
        "",
        *_resource_table(result.resources),
    ])

"""Learning rule bases from simulations (genetic-fuzzy-rule-based-scheduling Section 4).

- :func:`schedlab.optimize.gfs_iterative.iterative` (Section 4.1, Algorithm 2): a table rule base
  (default Table 2, 192 situation classes) starts with the standard strategy (FCFS + decreasing
  waiting time) in every class; class by class, each of the 13 strategies is simulated as that
  class's consequence and the best kept (first on ties, as Algorithm 2's strict ``<`` from
  f_old = inf). A run folder (config, checkpoint after every class, history.csv, best.json,
  report.html); the 13 simulations of a class go through the Executor.
- :class:`SymbioticGFS` (Sections 4.2-4.3, Algorithms 3-4, Eqs. 10-16): an ask/tell optimizer
  over a population of fuzzy rules; ``ask`` composes N_f rule bases of N_r rules by least
  similarity, ``tell`` gives each rule the mean objective of the bases it took part in
  (Eq. 12), adapts the mutation step (Eqs. 14-15), selects the parents by clusters (Algorithm
  4, k-means with scikit-learn) and breeds lambda offspring by discrete multirecombination
  (Eq. 13) and Gaussian mutation (Eq. 16). It runs on the run machinery of ``evolve greedy``
  (:func:`schedlab.optimize.run.optimize`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..errors import RunError
from ..strategy import rules as R
from .greedy import TrainingSet
from .rule_value import TableEvaluator, rulebase_value  # noqa: F401  (TableEvaluator: gfs.TableEvaluator, as before)
from .heldout import TEST_COLUMNS
from .run import Optimizer
from .settings import DEFAULT_EXECUTOR, NOT_GIVEN, check_memory, check_whole, renamed_executor
from .versus_easy import UTIL_GUARD_READING, check_util_guard, guarded_objective  # noqa: F401  (gfs.guarded_objective, as before)

NF, NS = R.N_FEATURES, R.N_STRATEGIES
GENES = 2 * NF + NS  # centre and width per feature, then one output per strategy (Fig. 2)

#: readings where the paper leaves a detail open (recorded in config.json)
READINGS = {
    "rule_fitness": "f(R_i) = (1/N_s) sum_n f_n / N_r with f_n the objective of the n-th base R_i took part in "
                    "(Eq. 12 without f_max: the objective is already minimised)",
    "composition": "Algorithm 3 with S reset every lambda / N_r bases (a round), so that every rule takes part in "
                   "exactly N_s bases (\"every rule within the population participates ... exactly N_s = 10 Fuzzy "
                   "systems\", Section 4.3.1); within a round: first rule random, then the least similar (Eq. 11) "
                   "to the last one chosen",
    "selection": "(mu + lambda): Algorithm 4 over parents and offspring; k-means (scikit-learn, k = 10) on the centres; "
                 "mu_i = ceil(mu / (f(c_i) sum_l 1/f(c_l)) + 0.5) best of each cluster, clusters by mean fitness of "
                 "their n = 5 best, stopping at mu; the rest by (cluster, individual) fitness",
    "recombination": "rho = 12: the first parent random, the 5 most similar to it (Eq. 11), 6 random others; "
                     "each gene from one of the 12 (Eq. 13)",
    "success": "an offspring is a success when its fitness beats that of one of its rho parents drawn at random (Eq. 14); "
               "sigma is adapted from the second generation on (Eq. 15)",
    "outputs": "outputs are genes like the others (Eq. 16); a rule recommends the nearest level of -5, -1, 0, 1, 5",
    "bounds": "centres clipped to [0, 100], widths to [0.01, 1000] (reflected at 0.01), outputs to [-5, 5]",
    "initial": "lambda random rules: centres U[0, 100], widths U[1, 50], outputs U[-5, 5]; sigma0 = 5",
    "final": "the best rule base evaluated in the run",
}


def decode_rule_base(x: np.ndarray, greedy=R.DEFAULT_GREEDY, allowed: tuple[int, ...] | None = None) -> R.FuzzyRuleBase:
    """A fuzzy rule base from a flat vector of rules x (N_r x GENES); ``allowed``: the strategy set
    (None: all 13)."""
    a = np.asarray(x, dtype=np.float64).reshape(-1, GENES)
    return R.FuzzyRuleBase(a[:, :NF], a[:, NF:2 * NF], snap(a[:, 2 * NF:]), greedy=greedy, allowed=allowed)


def snap(outputs: np.ndarray) -> np.ndarray:
    """The nearest recommendation level (Section 4.2.2.1) of every output gene."""
    levels = np.asarray(R.LEVELS)
    return levels[np.argmin(np.abs(np.asarray(outputs)[..., None] - levels), axis=-1)]


def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Total cross correlation (Eq. 11) of rule a with every rule of b (rows of genes)."""
    ma, sa = a[:NF], a[NF:2 * NF]
    mb, sb = b[:, :NF], b[:, NF:2 * NF]
    v = sa ** 2 + sb ** 2
    return np.mean(np.exp(-((ma - mb) ** 2) / (2 * v)) / np.sqrt(2 * np.pi * v), axis=1)


@dataclass(frozen=True)
class FuzzyEvaluator:
    """``evaluator(training, x)``: the objective of the rule base decoded from x (picklable)."""

    greedy: Any = R.DEFAULT_GREEDY
    allowed: tuple[int, ...] | None = None

    def __call__(self, training: TrainingSet, x: np.ndarray) -> float:
        return rulebase_value(training, decode_rule_base(x, self.greedy, self.allowed))


# ---------------------------------------------------------------------------- symbiotic evolution
#: the command-line flag of each setting (``schedlab rules evolve``): errors name the flag a person typed
GFS_FLAGS = {"rules": "--rules", "mu": "--mu", "lam": "--lambda", "participations": "--participations",
             "rho": "--rho", "k": "--clusters", "n_best": "--cluster-best"}


@dataclass(frozen=True)
class GFSSettings:
    """The parameters of Sections 4.2-4.3 (defaults: the paper's values).

    Checked on construction, before anything runs or is written: every constraint that
    composition (:meth:`SymbioticGFS.ask`), selection and breeding rely on, each message naming
    the command-line flags (:data:`GFS_FLAGS`) involved; all conflicts at once, in one line."""

    rules: int = 50  # N_r
    mu: int = 50
    lam: int = 350
    participations: int = 10  # N_s; N_f = lam * N_s / N_r = 70 bases per generation
    rho: int = 12
    k: int = 10
    n_best: int = 5
    alpha: float = 1.224
    zeta0: float = 1 / 8
    sigma0: float = 5.0

    def __post_init__(self) -> None:
        f = GFS_FLAGS
        for name in ("rules", "mu", "lam", "participations", "rho", "k", "n_best"):
            check_whole(f[name], getattr(self, name))
        problems = []  # every conflict of the settings, in one line (not one per attempt)
        if self.lam % self.rules:  # ask: every round splits the lambda offspring into bases of N_r rules
            problems.append(f"{f['lam']} ({self.lam}) must be a multiple of {f['rules']} ({self.rules}): every rule "
                            f"takes part in exactly {f['participations']} bases of {f['rules']} different rules")
        if self.mu < self.rules:
            problems.append(f"{f['mu']} ({self.mu}) must be at least {f['rules']} ({self.rules}): \"as no rule exists "
                            f"twice in a Fuzzy system, each population must consist of at least mu = 50 potential "
                            f"rules\" (Section 4.3.1)")
        if self.rho < 2:  # _breed: the first parent, rho // 2 - 1 similar ones, rho - rho // 2 random ones
            problems.append(f"{f['rho']} must be at least 2, got {self.rho}: an offspring recombines {f['rho']} "
                            f"parents (Eq. 13)")
        # _breed draws rho different parents from those kept: mu, but only lambda after the first generation
        if self.rho > self.mu:
            problems.append(f"{f['rho']} ({self.rho}) must be at most {f['mu']} ({self.mu}): each offspring rule "
                            f"recombines {f['rho']} different parents out of the {f['mu']} kept; lower {f['rho']} "
                            f"or raise {f['mu']}")
        if self.rho > self.lam:
            problems.append(f"{f['rho']} ({self.rho}) must be at most {f['lam']} ({self.lam}): each offspring rule "
                            f"recombines {f['rho']} different parents, and after the first generation only its "
                            f"{f['lam']} offspring rules are there to choose them from; lower {f['rho']} or raise "
                            f"{f['lam']}")
        if problems:
            raise RunError("; ".join(problems))
        # a generation holds its offspring, parents and N_f bases of N_r rules (lam * N_s rules) as float64 genes
        check_memory(f"{f['lam']} {self.lam} with {f['participations']} {self.participations}",
                     8.0 * GENES * (self.lam * (self.participations + 3) + self.mu), "the rules and bases of a generation")

    @property
    def bases(self) -> int:  # N_f
        return self.lam * self.participations // self.rules


class SymbioticGFS(Optimizer):
    """Ask/tell symbiotic evolution of fuzzy rules; ``ask`` returns N_f flat rule bases."""

    #: the selection's k-means (scikit-learn) computes distances with BLAS products: a last-bit
    #: difference between kernels can move a rule centre lying on a cluster boundary
    uses_blas = True

    def __init__(self, settings: GFSSettings, seed: int) -> None:
        self.s = settings
        self.rng = np.random.default_rng(seed)
        self.generation = 0
        self.evaluations = 0
        self.sigma = settings.sigma0
        self.parents = np.empty((0, GENES))
        self.parent_f = np.empty(0)
        self.offspring = self._random_rules(settings.lam)
        self.off_parents: np.ndarray | None = None  # (lam, rho) parent indices of each offspring
        self.members: np.ndarray | None = None
        self.best_x = self.offspring[: settings.rules].ravel().copy()
        self.best_f = math.inf
        self.lower = np.zeros(settings.rules * GENES)
        self.zeta = math.nan

    def _random_rules(self, n: int) -> np.ndarray:
        r = self.rng
        return np.hstack([r.uniform(0, 100, (n, NF)), r.uniform(1, 50, (n, NF)), r.uniform(-5, 5, (n, NS))])

    def ask(self) -> list[np.ndarray]:
        """Compose N_f rule bases from the offspring (Algorithm 3, in rounds: see READINGS)."""
        s, Q = self.s, self.offspring
        members = []
        for _ in range(s.participations):
            left = np.ones(s.lam, dtype=bool)
            for _ in range(s.lam // s.rules):
                cand = np.flatnonzero(left)
                i = int(self.rng.choice(cand))
                base = [i]
                left[i] = False
                for _ in range(s.rules - 1):
                    cand = np.flatnonzero(left)
                    i = int(cand[np.argmin(similarity(Q[i], Q[cand]))])
                    base.append(i)
                    left[i] = False
                members.append(base)
        self.members = np.array(members, dtype=np.int64)
        return [Q[b].ravel().copy() for b in self.members]

    def tell(self, xs, f) -> None:
        s, Q = self.s, self.offspring
        f = np.asarray(f, dtype=np.float64)
        f = np.where(np.isfinite(f), f, np.finfo(float).max / 1e6)
        self.evaluations += len(f)
        i = int(np.argmin(f))
        if f[i] < self.best_f:
            self.best_f, self.best_x = float(f[i]), np.asarray(xs[i], dtype=np.float64).copy()
        fit = np.zeros(s.lam)
        cnt = np.zeros(s.lam)
        for n, base in enumerate(self.members):  # Eq. 12 / Algorithm 3
            fit[base] += f[n] / s.rules
            cnt[base] += 1
        fit /= np.maximum(cnt, 1)
        if self.off_parents is not None:  # Eqs. 14-15
            pick = self.off_parents[np.arange(s.lam), self.rng.integers(0, s.rho, s.lam)]
            self.zeta = float(np.mean(fit < self.parent_f[pick]))
            if self.zeta > s.zeta0:
                self.sigma *= s.alpha
            elif self.zeta < s.zeta0:
                self.sigma /= s.alpha
        pool = np.vstack([self.parents, Q])
        pool_f = np.concatenate([self.parent_f, fit])
        keep = self._select(pool, pool_f)
        self.parents, self.parent_f = pool[keep], pool_f[keep]
        self.offspring, self.off_parents = self._breed()
        self.generation += 1

    def _select(self, pool: np.ndarray, f: np.ndarray) -> np.ndarray:
        """Algorithm 4: mu rules chosen by clusters of their centres."""
        from sklearn.cluster import KMeans

        s = self.s
        k = min(s.k, len(pool))
        labels = KMeans(n_clusters=k, n_init=4, random_state=int(self.rng.integers(2**31 - 1))).fit_predict(pool[:, :NF])
        fbar = np.empty(k)
        members = []
        for c in range(k):
            idx = np.flatnonzero(labels == c)
            idx = idx[np.argsort(f[idx], kind="stable")]
            members.append(idx)
            fbar[c] = np.mean(f[idx[: min(len(idx), s.n_best)]]) if len(idx) else np.inf
        fbar = np.maximum(fbar, 1e-300)
        inv = np.where(np.isfinite(fbar), 1.0 / fbar, 0.0)
        chosen: list[int] = []
        for c in np.argsort(fbar, kind="stable"):
            want = math.ceil(s.mu / (fbar[c] * inv.sum()) + 0.5) if np.isfinite(fbar[c]) else 0
            for j in members[c][:want]:
                if len(chosen) < s.mu:
                    chosen.append(int(j))
        if len(chosen) < s.mu:  # the best of the rest by (cluster, individual) fitness
            taken = set(chosen)
            rest = sorted((fbar[labels[j]], f[j], j) for j in range(len(pool)) if j not in taken)
            chosen += [int(j) for _, _, j in rest[: s.mu - len(chosen)]]
        return np.array(chosen, dtype=np.int64)

    def _breed(self) -> tuple[np.ndarray, np.ndarray]:
        """lambda offspring: discrete multirecombination of rho parents (Eq. 13), Gaussian mutation (Eq. 16)."""
        s, P, r = self.s, self.parents, self.rng
        half = s.rho // 2  # GFSSettings checks 2 <= rho <= min(mu, lambda) <= len(P)
        out = np.empty((s.lam, GENES))
        parents = np.empty((s.lam, s.rho), dtype=np.int64)
        for c in range(s.lam):
            first = int(r.integers(len(P)))
            sim = similarity(P[first], P)
            sim[first] = -np.inf
            similar = np.argsort(-sim, kind="stable")[: half - 1]
            others = np.setdiff1d(np.arange(len(P)), np.concatenate([[first], similar]))
            rand = r.choice(others, s.rho - half, replace=False)
            ps = np.concatenate([[first], similar, rand]).astype(np.int64)
            parents[c] = ps
            z = r.random(GENES)  # Eq. 13: gene k from parent floor(Z rho)
            out[c] = P[ps[np.minimum((z * s.rho).astype(np.int64), s.rho - 1)], np.arange(GENES)]
        out += r.normal(0.0, self.sigma, out.shape)
        out[:, :NF] = np.clip(out[:, :NF], 0.0, 100.0)
        w = out[:, NF:2 * NF]
        w = np.where(w < 0.01, 0.02 - w, w)  # reflect at 0.01
        out[:, NF:2 * NF] = np.clip(w, 0.01, 1000.0)
        out[:, 2 * NF:] = np.clip(out[:, 2 * NF:], -5.0, 5.0)
        return out, parents

    def state_summary(self) -> dict[str, Any]:
        return {"sigma": self.sigma, "zeta": self.zeta}


def gene_names(rules: int) -> list[str]:
    names = []
    for i in range(1, rules + 1):
        names += [f"r{i}_mu_{f}" for f in R.FEATURES] + [f"r{i}_sigma_{f}" for f in R.FEATURES]
        names += [f"r{i}_out_{s}" for s in R.STRATEGIES]
    return names


def settings_readings(settings: GFSSettings) -> dict[str, str]:
    """:data:`READINGS` with the numbers of ``settings`` (--rho, --clusters, --cluster-best) where
    they name one; the paper's settings give READINGS itself (so their run folders keep resuming)."""
    r, out = settings.rho, dict(READINGS)
    out["selection"] = out["selection"].replace("k = 10", f"k = {settings.k}").replace("n = 5", f"n = {settings.n_best}")
    out["recombination"] = (f"rho = {r}: the first parent random, the {r // 2 - 1} most similar to it (Eq. 11), "
                            f"{r - r // 2} random others; each gene from one of the {r} (Eq. 13)")
    return out


def gfs_settings_dict(settings: GFSSettings) -> dict[str, Any]:
    d = asdict(settings)
    d["bases_per_generation"] = settings.bases
    d["readings"] = settings_readings(settings)
    return d


# ---------------------------------------------------------------------------- run drivers
@dataclass
class RulesResult:
    run_dir: Any
    best: Any
    best_f: float
    interrupted: bool
    comparison: list
    evaluations: int = 0
    generations: int = 0
    elapsed: float = 0.0
    #: what a report of the run draws from (the CLI's, schedlab.report.run_report): the run's config
    #: (config.json without the library versions), the histories by (sub-)run and the training set
    config: dict = field(default_factory=dict)
    histories: dict = field(default_factory=dict)
    training: Any = None


#: ``--select``: which base a run returns (``train``: the paper's)
SELECT_READINGS = {
    "train": "the base with the best training objective (the paper: the optimisation's result)",
    "test": "the base, among the best of every generation (symbiotic) or the base after every situation class "
            "(iterative), with the lowest objective on the held-out workloads (--test, --split-months): "
            "selection on held-out data, beyond the paper, which trains and reports on the same workload "
            "(\"The rule base has been optimized using the CTC workload\", Section 5); the held-out workloads "
            "are then validation data, and a gate on unseen ones is `evolve compare` on further traces",
}


def check_rules_options(strategies: str = "all", util_guard: float | None = None, select: str = "train",
                        heldout: bool = False) -> None:
    """The remedy options, checked before anything is read or written (RunError naming the flag)."""
    if strategies not in R.STRATEGY_SETS:
        raise RunError(f"unknown --strategies {strategies!r}; choose {' or '.join(R.STRATEGY_SETS)}")
    check_util_guard(util_guard)
    if select not in SELECT_READINGS:
        raise RunError(f"unknown --select {select!r}; choose {' or '.join(SELECT_READINGS)}")
    if select == "test" and not heldout:
        raise RunError("--select test selects on held-out workloads: give --test or --split-months too")


def _prepare(evolve_config, kind: str, extra: dict[str, Any], greedy=R.DEFAULT_GREEDY, *, strategies: str = "all",
             util_guard: float | None = None, select: str = "train"):
    """Validate and load before any run folder is touched: (training, EASY metrics, held-out set, config dict).

    Held-out and remedy keys enter the config only when given, so run folders made before them
    resume with the same command."""
    import dataclasses

    from .evolve import _config_trace, heldout_config, note_ignored_resources, prepare, training_identity

    spec = evolve_config.trace_spec
    check_rules_options(strategies, util_guard, select, bool(evolve_config.test or spec.split_months))
    objective = evolve_config.objective.expr
    if util_guard is not None:
        evolve_config = dataclasses.replace(evolve_config, objective=guarded_objective(objective, util_guard))
    training, easy, heldout = prepare(evolve_config)
    note_ignored_resources(training.workloads)
    cfg = {"kind": kind, "traces": [_config_trace(t) for t in evolve_config.traces], "objective": objective,
           "procs": spec.procs, "months": spec.months, "scale_to": spec.scale_to,
           "calibrate_load": spec.calibrate_load, "scale_seed": 0,
           **training_identity(training),
           "features": list(R.FEATURES), "strategies": list(R.STRATEGIES),
           "greedy": greedy.to_dict(), "sd_clip": "job",
           "sd_clip_reading": R.SD_CLIP_READINGS["job"], "conservative_on_switch": "rebuild",
           "conservative_on_switch_reading": R.CONSERVATIVE_ON_SWITCH["rebuild"], **extra,
           **heldout_config(evolve_config, heldout)}
    if spec.format is not None:  # else sniffed; only when given, so run folders made before it keep resuming
        cfg["format"] = spec.format
    if strategies != "all":
        cfg.update(strategy_set=strategies, strategy_set_reading=R.STRATEGY_SET_READINGS[strategies])
    if util_guard is not None:
        cfg.update(util_guard=float(util_guard), util_guard_reading=UTIL_GUARD_READING,
                   training_objective=training.objective.expr)
    if select != "train":
        cfg.update(select=select, select_reading=SELECT_READINGS[select])
    return training, easy, heldout, cfg


def _finish(run, result: RulesResult, cfg, histories, training, easy, heldout, objective: str) -> RulesResult:
    """comparison.json and rules.txt of a finished run; ``result`` with the comparison and what a
    report draws from."""
    import json

    from .evolve import train_test_comparison

    # with --util-guard the final table is on the objective without the guard
    comparison = train_test_comparison(result.best, training, easy, heldout, objective)
    run.write_text("comparison.json", json.dumps(comparison, indent=2) + "\n")
    run.write_text("rules.txt", result.best.render() + "\n")
    result.comparison, result.config, result.histories, result.training = comparison, cfg, histories, training
    return result


def rules_iterative(evolve_config, out, partitions=R.TABLE2_PARTITIONS, *, executor=DEFAULT_EXECUTOR, workers=None,
                    on_start=None, on_class=None, greedy=R.DEFAULT_GREEDY,
                    strategies: str = "all", util_guard: float | None = None, select: str = "train",
                    executor_spec=NOT_GIVEN) -> RulesResult:
    """`schedlab rules iterative`: Algorithm 2 into run folder ``out`` (resumes). ``strategies``,
    ``util_guard``, ``select``: the remedies (:data:`~schedlab.strategy.rules.STRATEGY_SET_READINGS`,
    :data:`UTIL_GUARD_READING`, :data:`SELECT_READINGS`); the defaults are the paper's method."""
    from ..execute import make_executor
    from .gfs_iterative import iterative
    from .run import RunFolder

    base = R.TableRuleBase(partitions)
    training, easy, heldout, cfg = _prepare(evolve_config, "rules-iterative", {
        "partitions": [list(b) for b in base.partitions], "situation_classes": base.n_classes,
        "standard_strategy": R.SET_DEFAULT_STRATEGY[strategies] if strategies in R.STRATEGY_SETS else None,
        "unvisited": "skip", "method": "genetic-fuzzy-rule-based-scheduling Section 4.1, Algorithm 2"}, greedy,
        strategies=strategies, util_guard=util_guard, select=select)
    run = RunFolder(out, cfg)
    with make_executor(renamed_executor(executor, executor_spec, "rules"), workers=workers, payload=training) as executor:
        state = iterative(run, training, base.partitions, executor, on_start=on_start, on_class=on_class, greedy=greedy,
                          strategies=strategies, heldout=heldout, select=select)
    result = RulesResult(run.path, state["rulebase"], state["value"], state["interrupted"], [],
                         evaluations=state["simulations"], generations=state["next"], elapsed=state["elapsed"])
    if result.interrupted:
        return result
    if select != "train":
        run.write_text("best.json", R.rulebase_to_json(result.best) + "\n")
    # one step per situation class: its best is the base's objective after it, its median that of the 13
    # bases tried on it (as a generation's median; a class no pass reaches tries none); its evaluations the
    # simulations so far (a visited class simulates each strategy of the set on every training workload)
    tries = np.cumsum([len(R.strategy_set(strategies)) * len(training.workloads) * bool(r["visited"])
                       for r in state["history"]])
    hist = [{"gen": i + 1, "evaluations": int(tries[i]), "best": r["objective"], "sigma": 0.0, "elapsed": r["elapsed"],
             "median": float(np.median([v for k, v in r.items() if k.startswith("f_")])) if r["visited"] else r["objective"],
             **({"extra": {k: r[k] for k in TEST_COLUMNS}} if heldout is not None else {})}
            for i, r in enumerate(state["history"])]
    return _finish(run, result, cfg, {"iterative": hist}, training, easy, heldout, evolve_config.objective)


def rules_evolve(evolve_config, out, settings: GFSSettings = GFSSettings(), *, executor=DEFAULT_EXECUTOR, workers=None,
                 on_start=None, on_generation=None, on_evaluation=None,
                 greedy=R.DEFAULT_GREEDY, strategies: str = "all", util_guard: float | None = None,
                 select: str = "train", executor_spec=NOT_GIVEN) -> RulesResult:
    """`schedlab rules evolve`: symbiotic evolution on the run machinery of ``evolve greedy``; the
    remedy options as :func:`rules_iterative`."""
    from ..execute import make_executor
    from .run import RunFolder, optimize

    from .evolve import heldout_extra

    training, easy, heldout, cfg = _prepare(evolve_config, "rules-symbiotic", {
        "generations": evolve_config.generations, "seed": evolve_config.seed, "symbiotic": gfs_settings_dict(settings),
        "method": "genetic-fuzzy-rule-based-scheduling Sections 4.2-4.3, Algorithms 3-4, Eqs. 5-16",
        "default_population": "off (Section 5.4: no beneficial effect observed)"}, greedy,
        strategies=strategies, util_guard=util_guard, select=select)
    allowed = None if strategies == "all" else R.strategy_set(strategies)
    decode = lambda x: decode_rule_base(x, greedy, allowed)  # noqa: E731
    run = RunFolder(out, cfg)
    with make_executor(renamed_executor(executor, executor_spec, "rules"), workers=workers, payload=training) as executor:
        res = optimize(run, lambda: SymbioticGFS(settings, evolve_config.seed), FuzzyEvaluator(greedy, allowed), executor,
                       evolve_config.generations, param_names=gene_names(settings.rules),
                       best_json=lambda x, f: R.rulebase_to_json(decode(x)) + "\n",
                       on_start=on_start, on_generation=on_generation, on_evaluation=on_evaluation,
                       **heldout_extra(heldout, decode))
    best_x, best_f = res.best_x, res.best_f
    if select == "test" and not res.interrupted:  # the generation whose best scored lowest on the held-out set
        row = min(res.history, key=lambda r: (r["extra"]["test"], r["gen"]))
        best_x, best_f = row["params"], row["best"]
        run.write_text("best.json", R.rulebase_to_json(decode(best_x)) + "\n")
    best = decode(best_x)
    result = RulesResult(run.path, best, best_f, res.interrupted, [], evaluations=res.evaluations,
                         generations=res.generations, elapsed=res.elapsed)
    if res.interrupted:
        return result
    return _finish(run, result, cfg, {"symbiotic": res.history}, training, easy, heldout, evolve_config.objective)

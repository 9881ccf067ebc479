"""One entry point for every kind of strategy the CLI and the comparisons accept.

``simulate_any(workload, machine, strategy)``: a :class:`~schedlab.strategy.Strategy` goes to the
rigid engine, a SCOJO-PECT config to the time-sharing engine, a rule base
(:mod:`schedlab.strategy.rules`) to the rule-based loop (:mod:`.rulebase`).
"""

from __future__ import annotations

from ..strategy import rules


def is_rulebase(strategy) -> bool:
    return isinstance(strategy, (rules.TableRuleBase, rules.FuzzyRuleBase))


def simulate_any(workload, machine, strategy, *, kill: bool = True):
    from .model import Machine

    if not isinstance(machine, Machine):
        machine = Machine(machine)
    if getattr(strategy, "dispatch", None) == "slurm":  # --policy slurm: its own loop (schedlab.slurm)
        from ..slurm.policy import simulate_slurm

        return simulate_slurm(workload, machine, strategy, kill=kill)
    if is_rulebase(strategy):
        from .rulebase import simulate_rulebase

        return simulate_rulebase(workload, machine, strategy, kill=kill)
    from .timeshare import ScojoConfig, simulate_scojo

    if isinstance(strategy, ScojoConfig):
        return simulate_scojo(workload, machine, strategy, kill=kill)
    from . import simulate

    return simulate(workload, machine, strategy, kill=kill)

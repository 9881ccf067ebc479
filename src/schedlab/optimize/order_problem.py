"""The pymoo view of a search over job orders, shared by the bound's NSGA-III
(:mod:`schedlab.optimize.bound`) and the federation GA (:mod:`schedlab.optimize.federation_ga`).

Both evaluate outside pymoo (through an Executor, :func:`schedlab.optimize.run.run_generations`);
pymoo only needs the genotype's shape: ``n_var`` integer genes (a permutation of ``0..n_var-1``)
and the number of objectives.
"""

from __future__ import annotations

from pymoo.core.problem import Problem


class OrderProblem(Problem):
    """``n_var`` integer genes (a permutation), ``n_obj`` objectives; evaluated outside pymoo.

    (``schedlab.optimize.bound.OrderProblem`` names this class too, so a bound checkpoint pickled
    before it moved here still loads.)"""

    def __init__(self, n_var: int, n_obj: int = 1) -> None:
        super().__init__(n_var=n_var, n_obj=n_obj, xl=0, xu=max(n_var - 1, 0), vtype=int)

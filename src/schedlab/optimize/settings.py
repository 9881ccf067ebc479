"""Checks shared by the settings of every optimizer verb (``evolve greedy``, ``rules evolve``,
``bound``, ``grid pareto``, ``federation run``): each runs when the settings are built, so before
anything is read, compiled or written, and its one-line error names the command-line flag."""

from __future__ import annotations

from ..errors import RunError

#: The seed every optimizer (``schedlab.minimize``, each verb's ``--seed``, each config) starts from when none
#: is given: 1, as the README states (issue 46: ``EvolveConfig`` and ``FederationGAConfig`` had 0, the verbs 1).
DEFAULT_SEED = 1

#: The executor every optimizer runs its evaluations on when none is given: None = local processes on
#: all cores (:func:`schedlab.execute.make_executor`; the verbs' ``--workers`` default). Issue 46: the grid
#: and federation drivers had defaulted to "serial" from Python, the other drivers to all cores. Results do not
#: depend on it (every evaluation is pure), only the wall time.
DEFAULT_EXECUTOR: str | None = None


class _NotGiven:
    def __repr__(self) -> str:
        return "not given"


#: the default of a driver's deprecated ``executor_spec=`` keyword (None is a value: all cores)
NOT_GIVEN = _NotGiven()


def renamed_executor(executor, executor_spec, where: str):
    """The executor a driver was given: ``executor=`` (issue 46: one name in every driver), or the old
    ``executor_spec=`` it replaces, still read for one release with a DeprecationWarning."""
    if executor_spec is NOT_GIVEN:
        return executor
    import warnings

    warnings.warn(f"{where}(executor_spec=...) is now {where}(executor=...); executor_spec goes in the next release",
                  DeprecationWarning, stacklevel=3)
    return executor_spec


def check_whole(flag: str, value, minimum: int = 1) -> None:
    """Refuse ``value`` unless it is a whole number of at least ``minimum``."""
    if int(value) != value or value < minimum:
        what = "a positive whole number" if minimum == 1 else f"a whole number >= {minimum}"
        raise RunError(f"{flag} must be {what}, got {value}")


def check_seed(value, flag: str = "--seed") -> None:
    """A seed numpy's generators take: a whole number >= 0."""
    check_whole(flag, value, 0)


def physical_memory() -> int | None:
    """This machine's memory in bytes (None where the system does not tell)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def check_memory(setting: str, nbytes: float, what: str) -> None:
    """Refuse a population whose arrays (about ``nbytes``) exceed this machine's memory: numpy would
    otherwise stop the run with a MemoryError after the run folder was made. ``setting`` names the
    flags and values, e.g. ``"--pop 1000000000"``."""
    total = physical_memory()
    if total is not None and nbytes > total:
        raise RunError(f"{setting}: {what} would need about {nbytes / 2**30:,.0f} GiB, more than this machine's "
                       f"{total / 2**30:,.0f} GiB; give a smaller value")


#: the trace options a run's config.json stores under their own names, which are the fields of
#: :class:`schedlab.workload.spec.TraceSpec` (issue 46: configs hold a TraceSpec, not these fields)
TRACE_KEYS = ("procs", "months", "scale_to", "calibrate_load", "split_months", "format")


def stored_trace_spec(stored: dict, trace=None):
    """The :class:`~schedlab.workload.spec.TraceSpec` of ``trace`` a run's config.json describes (its
    :data:`TRACE_KEYS`; a key a config leaves out when unset is the option's default)."""
    from ..workload.spec import TraceSpec

    return TraceSpec(trace, **{k: stored[k] for k in TRACE_KEYS if stored.get(k) is not None})


def takes_trace_spec(cls=None, *, trace: bool = False):
    """Class decorator of a run config that holds its trace options as one ``trace_spec``
    (:class:`~schedlab.workload.spec.TraceSpec`): the flattened keywords it had before (``procs``,
    ``months``, ``scale_to``, ``calibrate_load``, ``split_months``, ``format``; with ``trace``, also
    ``trace``) still build that spec for one release, with a DeprecationWarning, as
    :mod:`schedlab._moved` does for moved names. Given beside ``trace_spec`` they are refused."""

    def wrap(cls):
        import functools

        init = cls.__init__
        old = (("trace",) if trace else ()) + TRACE_KEYS

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            flat = {k: kwargs.pop(k) for k in old if k in kwargs}
            if flat:
                import warnings

                from ..workload.spec import TraceSpec

                name, given = cls.__name__, ", ".join(f"{k}=..." for k in flat)
                warnings.warn(f"{name}({given}) is now {name}(trace_spec=TraceSpec({given})); the flattened trace "
                              "options go in the next release", DeprecationWarning, stacklevel=2)
                if "trace_spec" in kwargs:
                    raise RunError(f"{name}: give the trace options in trace_spec only, not also as "
                                   f"{', '.join(sorted(flat))}")
                kwargs["trace_spec"] = TraceSpec(**flat)
            init(self, *args, **kwargs)

        cls.__init__ = __init__
        return cls

    return wrap if cls is None else wrap(cls)


def check_template(spec, where: str) -> None:
    """A run config's ``trace_spec``: a :class:`~schedlab.workload.spec.TraceSpec` (checked on its own
    construction) without a trace (the config's ``traces`` name them) whose ``split_months`` leaves
    test months within ``months``."""
    from ..workload.spec import TraceSpec

    if not isinstance(spec, TraceSpec):
        raise RunError(f"{where}: trace_spec must be a TraceSpec, got {type(spec).__name__}")
    if spec.trace is not None:
        raise RunError(f"{where}: trace_spec says how every trace is prepared; give it no trace (got "
                       f"{str(spec.trace)!r}) and the traces in traces")
    if spec.split_months is not None and spec.months is not None and spec.split_months >= spec.months:
        raise RunError(f"--split-months {spec.split_months} leaves no test months within --months {spec.months}")

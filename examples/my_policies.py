"""A researcher's own policies in a file outside the package (README 'Your own queue order or
dispatch rule'): ``schedlab simulate TRACE --plugin examples/my_policies.py --policy shortfill
--order waitwidth``, or ``schedlab.load_plugin("examples/my_policies.py")`` in Python.
benchmarks/speed/bench_plugin.py times them beside the built-in ones; tests/test_plugin_dynamic.py checks
them against hand-worked cases and the naive reference."""

from schedlab.strategy import register_order, register_rule


@register_order("area", "smallest estimated area (processors x estimate) first")
def area(width, estimate, group, rank):  # static: numpy arrays of all jobs in, one key per job out
    return width * estimate


@register_order("waitwidth", "largest wait x processors first", dynamic=True)
def waitwidth(wait, width):  # dynamic: one job at a pass, recomputed at every pass
    return -wait * width


@register_rule("firstfit", "start every waiting job that fits, in queue order")
def firstfit(width, free, start):
    for i in range(width.shape[0]):
        if width[i] <= free:
            start[i] = 1
            free -= width[i]


@register_rule("shortfill", "start the head while it fits, then later jobs that fit and end by the first "
                            "running job's estimated end")
def shortfill(width, estimate, now, free, run_end, start):
    n = width.shape[0]
    i = 0
    while i < n and width[i] <= free:  # the head, while it fits
        start[i] = 1
        free -= width[i]
        i += 1
    if i == n or run_end.shape[0] == 0:
        return
    for k in range(i + 1, n):
        if width[k] <= free and now + estimate[k] <= run_end[0]:
            start[k] = 1
            free -= width[k]

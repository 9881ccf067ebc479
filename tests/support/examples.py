"""How many random examples a hypothesis test draws: all of them in the full suite, a tenth in the fast tier.

The full suite (what CI runs) draws each test's own ``max_examples`` (the ``ci`` profile: 100 where a
test sets none). The fast tier (``pytest -m "not slow"``, the developer loop; conftest's
``pytest_configure`` sets :data:`FAST`) draws a tenth, at least :data:`FAST_MIN`: enough to run every
property on fresh random cases each time, not to search as hard as CI does.
"""

from __future__ import annotations

#: set by conftest when the run is the fast tier
FAST = False
#: the share of a test's examples the fast tier draws, and the fewest it draws
FAST_SHARE = 0.1
FAST_MIN = 10


def examples(n: int) -> int:
    """``n`` in the full suite; ``max(FAST_MIN, n * FAST_SHARE)`` in the fast tier (never more than ``n``)."""
    return min(n, max(FAST_MIN, int(n * FAST_SHARE))) if FAST else n

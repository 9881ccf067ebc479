"""The codes of the exchange rules' readings: the int64 vector the compiled grid loop reads.

One slot per option (``R_*``), one code per value; :data:`OPTIONS` names them, :data:`DEFAULTS`
is the recommended reading and :data:`DEFAULT_CODES` its vector. Below both the loop
(:mod:`schedlab.grid.kernel`, which reads the codes) and :mod:`schedlab.grid.readings` (which
quotes the text each value reads and turns a :class:`~schedlab.grid.readings.Reading` into codes),
so neither imports the other for the default.
"""

from __future__ import annotations

import numpy as np

R_RQ_SEQ, R_RQ_WHEN, R_RQ_TAKE, R_POOL_TAKE, R_POOL_KEEP, N_READING = 0, 1, 2, 3, 4, 5
RQ_SEQ_LOCAL_FIRST, RQ_SEQ_INTERLEAVED = 0, 1
RQ_WHEN_EVERY, RQ_WHEN_QUEUE, RQ_WHEN_ARRIVAL = 0, 1, 2
RQ_TAKE_BUDGET, RQ_TAKE_STARTABLE = 0, 1
POOL_TAKE_BACKFILL, POOL_TAKE_IDLE = 0, 1
POOL_KEEP_PERSISTENT, POOL_KEEP_ONCE = 0, 1

#: option -> {value name: code}, in the order of the reading slots
OPTIONS: dict[str, dict[str, int]] = {
    "rq_seq": {"local-first": RQ_SEQ_LOCAL_FIRST, "interleaved": RQ_SEQ_INTERLEAVED},
    "rq_when": {"every": RQ_WHEN_EVERY, "queue-changed": RQ_WHEN_QUEUE, "own-arrival": RQ_WHEN_ARRIVAL},
    "rq_take": {"budget": RQ_TAKE_BUDGET, "startable": RQ_TAKE_STARTABLE},
    "pool_take": {"backfill": POOL_TAKE_BACKFILL, "idle": POOL_TAKE_IDLE},
    "pool_keep": {"persistent": POOL_KEEP_PERSISTENT, "once": POOL_KEEP_ONCE},
}
SLOTS = {"rq_seq": R_RQ_SEQ, "rq_when": R_RQ_WHEN, "rq_take": R_RQ_TAKE,
         "pool_take": R_POOL_TAKE, "pool_keep": R_POOL_KEEP}
#: the recommended reading, a value per option (schedlab.grid.readings: why, from the text)
DEFAULTS: dict[str, str] = {"rq_seq": "local-first", "rq_when": "queue-changed", "rq_take": "budget",
                            "pool_take": "backfill", "pool_keep": "persistent"}


def codes_of(values: dict[str, str]) -> np.ndarray:
    """The int64 vector of a value per option (names of :data:`OPTIONS`, already checked)."""
    out = np.zeros(N_READING, dtype=np.int64)
    for name, slot in SLOTS.items():
        out[slot] = OPTIONS[name][values[name]]
    return out


#: the vector of :data:`DEFAULTS`: what the loop reads when no reading is given
DEFAULT_CODES = codes_of(DEFAULTS)

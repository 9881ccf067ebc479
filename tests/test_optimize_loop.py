"""The one optimization loop's pieces (issue 36 item 3): the one history.csv writer every optimizer
uses and the ask/tell protocol every adapter of :func:`schedlab.optimize.run.run_generations` declares."""

from __future__ import annotations

import csv
import math

import numpy as np

from schedlab.optimize.history import history_csv


def test_the_history_writer_reads_back_to_the_same_values():
    """Floats (numpy's float64 too) round-trip exactly, None and missing cells are empty, elapsed
    is %.3f unless asked for repr, a string with a comma stays one cell."""
    rows = [{"gen": 1, "best": np.float64(0.1) + np.float64(0.2), "median": math.inf, "elapsed": 1.23456,
             "name": "a, b", "test": None},
            {"gen": 2, "best": 1e-300, "median": 2.5, "elapsed": 7.0, "name": "c"}]
    cols = ["gen", "best", "median", "elapsed", "name", "test"]
    got = list(csv.DictReader(history_csv(rows, cols).splitlines()))
    assert [r["gen"] for r in got] == ["1", "2"]
    assert float(got[0]["best"]) == 0.1 + 0.2 and got[0]["best"] == "0.30000000000000004"
    assert float(got[1]["best"]) == 1e-300 and got[0]["median"] == "inf"
    assert [r["elapsed"] for r in got] == ["1.235", "7.000"]
    assert got[0]["name"] == "a, b" and got[0]["test"] == "" and got[1]["test"] == ""
    raw = list(csv.DictReader(history_csv(rows, cols, elapsed_format=None).splitlines()))
    assert raw[0]["elapsed"] == "1.23456"


def test_the_history_writer_keeps_the_declared_column_order():
    text = history_csv([{"b": 1, "a": 2, "other": 3}], ["a", "b"])
    assert text == "a,b\n2,1\n"

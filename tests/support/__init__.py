"""Helpers of the test suite (plain-Python references, golden-file recorders, writers of test
inputs): imported by the tests as ``support.NAME``, never by the package or by benchmarks/."""

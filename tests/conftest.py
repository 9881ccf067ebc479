"""Shared test fixtures: where the real traces live, and hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
#: ../shared/workloads beside the repository (the CI clone has a copy of shared/ beside it)
SHARED = Path(os.environ.get("SCHEDLAB_SHARED", ROOT.parent / "shared"))
WORKLOADS = SHARED / "workloads"

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=30)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def trace_path(name: str) -> Path:
    """Path of a real trace in ../shared/workloads; a missing trace is a failure, not a skip."""
    path = WORKLOADS / name
    if not path.exists():
        raise FileNotFoundError(f"real trace {path} is missing: tests need ../shared/workloads beside the repo")
    return path


@pytest.fixture(scope="session")
def workloads_dir() -> Path:
    if not WORKLOADS.is_dir():
        raise FileNotFoundError(f"{WORKLOADS} is missing: tests need ../shared/workloads beside the repo")
    return WORKLOADS

"""`schedlab workload` commands."""

from .main import app  # noqa: F401

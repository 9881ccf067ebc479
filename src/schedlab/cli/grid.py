"""`schedlab grid` commands."""

from .main import app  # noqa: F401

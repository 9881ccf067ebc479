"""`schedlab evolve` commands."""

from .main import app  # noqa: F401

"""`schedlab simulate` commands."""

from .main import app  # noqa: F401

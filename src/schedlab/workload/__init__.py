"""Workload traces: SWF I/O, cleaning, cuts, user groups, scaling (see DESIGN.md)."""
from .model import Workload
__all__ = ["Workload"]

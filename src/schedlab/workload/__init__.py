"""Workload traces: SWF I/O, cleaning, cuts, user groups, scaling (see DESIGN.md)."""
from .model import Workload
from .swf import read_swf, write_swf

__all__ = ["Workload", "read_swf", "write_swf"]

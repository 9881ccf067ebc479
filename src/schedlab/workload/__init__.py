"""Workload traces: SWF I/O, cleaning, cuts, user groups, time-of-week classes, scaling, and the one
preparation of a trace every verb uses (:class:`TraceSpec`, :func:`prepare_trace`; see DESIGN.md)."""

from .clean import CleanReport, clean, job_width
from .cut import cut_months
from .groups import DEFAULT_THRESHOLDS, assign_groups, group_shares
from .info import workload_info
from .load import BUNDLED, load_trace, read_trace, resolve_trace
from .model import Workload
from .scale import SCALED_JOB_COUNTS, scale
from .spec import TraceSpec, prepare_trace, split_trace
from .swf import read_swf, write_swf
from .timeofweek import TIME_OF_WEEK_CLASSES, time_of_week_class, time_of_week_segments

__all__ = [
    "BUNDLED",
    "CleanReport",
    "DEFAULT_THRESHOLDS",
    "SCALED_JOB_COUNTS",
    "TIME_OF_WEEK_CLASSES",
    "TraceSpec",
    "Workload",
    "assign_groups",
    "clean",
    "cut_months",
    "group_shares",
    "job_width",
    "load_trace",
    "prepare_trace",
    "read_swf",
    "read_trace",
    "resolve_trace",
    "scale",
    "split_trace",
    "time_of_week_class",
    "time_of_week_segments",
    "workload_info",
    "write_swf",
]

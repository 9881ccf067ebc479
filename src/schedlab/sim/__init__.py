"""The simulation engine (see DESIGN.md): ``simulate``, ``validate_schedule``, ``Machine``, ``Schedule``."""

from .engine import simulate
from .model import Machine, Schedule
from .validate import ScheduleInvalid, validate_schedule

__all__ = ["Machine", "Schedule", "ScheduleInvalid", "simulate", "validate_schedule"]

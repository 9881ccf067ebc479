"""The validators' one error: :class:`ScheduleInvalid`, below both :mod:`.validate` (rigid and
rule-base schedules, which re-exports it) and :mod:`.validate_ts` (time-shared schedules), so
neither has to import the other for it."""

from __future__ import annotations


class ScheduleInvalid(AssertionError):
    """A schedule that breaks a rule; the message names the job and the rule."""

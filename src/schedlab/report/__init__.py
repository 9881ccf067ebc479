"""schedlab.report (see DESIGN.md): the report and figures of a run folder of any kind
(``schedlab.report.write(run_folder)``, :mod:`.runs`), of schedules (:mod:`.schedule_plots`), tables."""

from .runs import plot_run, write

__all__ = ["plot_run", "write"]

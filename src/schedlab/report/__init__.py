"""schedlab.report (see DESIGN.md)."""

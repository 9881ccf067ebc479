"""schedlab.metrics (see DESIGN.md)."""

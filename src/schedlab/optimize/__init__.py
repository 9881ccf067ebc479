"""schedlab.optimize (see DESIGN.md)."""

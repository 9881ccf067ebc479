"""schedlab.grid (see DESIGN.md)."""

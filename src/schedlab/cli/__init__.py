"""schedlab.cli (see DESIGN.md)."""

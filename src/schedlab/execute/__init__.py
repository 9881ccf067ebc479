"""schedlab.execute (see DESIGN.md)."""

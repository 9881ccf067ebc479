"""The simulation engine (see DESIGN.md)."""

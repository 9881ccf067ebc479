"""schedlab.slurm: Slurm as a site runs it (issue 37) — the conformance harness against a real Slurm."""

#!/bin/sh
# The federation experiments of issue 14 (slowdown-guided-ga-federation, Figs. 1, 4, 5). Usage:
#   sh docs/results/federation/run.sh RUNS_DIR
# Every run folder is resumable: re-running continues where it stopped (finished runs are read back).
# On a shared machine set LOCK to a command that serialises benchmarks (flock).
set -e
RUNS=${1:-runs/federation}
TRACE=${TRACE:-../shared/workloads/HPC2N-2002-2.2-cln.swf.gz}
GENS=${GENS:-20}           # GA generations of the comparison (the paper: 500; see README.md)
LOCK=${LOCK:-}             # e.g. LOCK="flock bench.lock" on a shared machine
S=".venv/bin/schedlab federation"
mkdir -p "$RUNS"

# 1. speed: one fitness evaluation of a 1,000-job package (benchmarks/bench_federation.py)
$LOCK .venv/bin/python benchmarks/bench_federation.py | tee "$RUNS/bench.txt"

# 2. one locked section: the heuristics on Wk-1..6 (2,000 consecutive HPC2N jobs each, packages of
#    100 and 1,000), the paper-size GA-METL (500 x 200) on one 1,000-job package (timed), and the GAs
#    of the comparison with GENS generations x 200 individuals
$LOCK sh -c "
  $S compare $TRACE --jobs 2000 --workloads 6 --package-size 100 --package-size 1000 \
      --methods jpr,cbs,metl --generations $GENS --seed 0 --out $RUNS/cmp &&
  /usr/bin/time -f '%e s wall' $S run $TRACE --method ga-metl --package-size 1000 --jobs 1000 --generations 500 \
      --pop 200 --seed 0 --out $RUNS/full-ga-metl-p1000 --json > $RUNS/full-ga-metl-p1000.json &&
  $S compare $TRACE --jobs 2000 --workloads 6 --package-size 100 --package-size 1000 \
      --generations $GENS --seed 0 --out $RUNS/cmp"

# 3. re-running compare reads every finished run folder back and rewrites table.md, results.json and
#    the figures (no lock needed: no optimization runs)
$S compare $TRACE --jobs 2000 --workloads 6 --package-size 100 --package-size 1000 --generations $GENS --seed 0 \
    --out "$RUNS/cmp" > /dev/null
cp "$RUNS/cmp/table.md" "$RUNS/cmp/results.json" "$RUNS"/cmp/*.png "$RUNS/full-ga-metl-p1000.json" \
    "$RUNS/bench.txt" docs/results/federation/

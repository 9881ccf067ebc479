#!/bin/sh
# The federation experiments of issue 14 (slowdown-guided-ga-federation, Figs. 1, 4, 5), step by step,
# each step under the shared benchmark lock (the machine is shared). Every run folder is resumable:
# re-running this script continues where it stopped. Usage: sh docs/results/federation/run.sh RUNS_DIR
set -e
RUNS=${1:-runs/federation}
TRACE=${TRACE:-../shared/workloads/HPC2N-2002-2.2-cln.swf.gz}
GENS=${GENS:-100}          # the paper: 500 (see README.md for what was run)
LOCK="flock /work/wt/bench.lock"
S=".venv/bin/schedlab federation"
mkdir -p "$RUNS"

# 1. speed: one fitness evaluation of a 1,000-job package, and the full paper-size GA-METL (500 x 200)
$LOCK .venv/bin/python benchmarks/bench_federation.py | tee "$RUNS/bench.txt"

# 2. heuristics on Wk-1..6 (2,000 consecutive jobs each), packages of 100 and 1,000
$LOCK $S compare $TRACE --jobs 2000 --workloads 6 --package-size 100 --package-size 1000 \
    --methods jpr,cbs,metl --generations $GENS --out "$RUNS/cmp"

# 2b. the paper-size GA-METL (500 x 200) on one 1,000-job package, timed
$LOCK $S run $TRACE --method ga-metl --package-size 1000 --jobs 1000 --generations 500 --pop 200 \
    --out "$RUNS/full-ga-metl-p1000" --json | tee "$RUNS/full-ga-metl-p1000.json"

# 3. the GAs: one locked section per workload (its 4 runs: GA-METL and GA-Random, packages of 1,000 and 100)
for wk in 1 2 3 4 5 6; do
  $LOCK sh -c "for size in 1000 100; do for m in ga-metl ga-random; do
      $S run $TRACE --method \$m --package-size \$size --jobs 2000 --offset $(( (wk - 1) * 2000 )) \
          --generations $GENS --pop 200 --out \"$RUNS/cmp/p\$size/Wk-$wk/\$m\" --json || exit 1; done; done"
done

# 4. table and figures of everything (reads the finished run folders back)
$LOCK $S compare $TRACE --jobs 2000 --workloads 6 --package-size 100 --package-size 1000 \
    --generations $GENS --out "$RUNS/cmp"

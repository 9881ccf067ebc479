#!/bin/sh
# The federation experiments of issues 14/14b (slowdown-guided-ga-federation, Figs. 1, 4, 5). Usage:
#   sh docs/results/federation/run.sh RUNS_DIR
# Every run folder is resumable: re-running continues where it stopped (finished runs are read back),
# so the script can be stopped at any time (Ctrl-C) and started again.
# On a shared machine: LOCK serialises benchmarks, SLICE bounds each locked section (seconds; the
# comparison is stopped by SIGINT, which checkpoints, and resumed in the next section), NICE lowers
# the comparison's priority. This session used:
#   LOCK="flock ../bench.lock" SLICE=600 NICE="nice -n 19" sh docs/results/federation/run.sh runs/federation-500
# METHODS runs a subset in step 2 (step 3 reports every method), so two streams can share the
# comparison folder, one GA per core; BENCH=0 skips step 1. The 500-generation table was made so:
#   BENCH=0 METHODS=jpr,cbs,metl,ga-random sh docs/results/federation/run.sh runs/federation-500 &
#   BENCH=0 METHODS=ga-metl sh docs/results/federation/run.sh runs/federation-500
set -e
RUNS=${1:-runs/federation-500}
TRACE=${TRACE:-../shared/workloads/HPC2N-2002-2.2-cln.swf.gz}
GENS=${GENS:-500}          # GA generations of the comparison (the paper: 500)
LOCK=${LOCK:-}             # e.g. LOCK="flock bench.lock" on a shared machine
SLICE=${SLICE:-}           # e.g. SLICE=600: locked sections of at most 10 minutes
NICE=${NICE:-}             # e.g. NICE="nice -n 19"
METHODS=${METHODS:-jpr,cbs,metl,ga-random,ga-metl}
WORKERS=${WORKERS:-1}      # worker processes per comparison (1: the GA of a 100-job package is too cheap for a pool)
BENCH=${BENCH:-1}          # 0: skip the speed benchmarks of step 1
S=".venv/bin/schedlab federation"
# the readings the committed tables were made with (issue 34 made --package-start carry --makespan workload
# the defaults; with READING="" the comparison runs under those instead, into new figures)
READING=${READING---package-start barrier --makespan package-sum}
CMP="compare $TRACE --jobs 2000 --package-size 100 --package-size 1000 --generations $GENS --seed 0 $READING --out $RUNS/cmp"
mkdir -p "$RUNS"

# 1. speed: one fitness evaluation of a 1,000-job package; whole GA-METL 500 x 200 runs on a 100-job
#    and a 1,000-job package (median of 3; add --baseline-src OLD/src for the before/after ratios)
if [ "$BENCH" != 0 ]; then
  $LOCK .venv/bin/python benchmarks/speed/bench_federation.py | tee "$RUNS/bench.txt"
  $LOCK .venv/bin/python benchmarks/speed/bench_federation.py --ga --package 100 --runs 3 | tee -a "$RUNS/bench.txt"
  $LOCK .venv/bin/python benchmarks/speed/bench_federation.py --ga --package 1000 --runs 3 | tee -a "$RUNS/bench.txt"
fi

# 2. the comparison, workload by workload (Wk-1 at both package sizes, then Wk-2, ...): every method
#    on Wk-1..i; a section stopped by SLICE exits 130 and the next one resumes it
for i in 1 2 3 4 5 6; do
  while :; do
    rc=0
    $LOCK ${SLICE:+timeout -s INT $SLICE} $NICE $S $CMP --workloads $i --methods $METHODS --workers $WORKERS > /dev/null || rc=$?
    [ $rc = 0 ] && break
    [ $rc = 124 ] || [ $rc = 130 ] || exit $rc
    sleep 10   # let other lock holders in
  done
done

# 3. table, results.json and figures of the finished run folders (runs nothing; lists what is missing)
$S $CMP --workloads 6 --report-only | tail -1
cp "$RUNS/cmp/table.md" "$RUNS/cmp/results.json" "$RUNS"/cmp/*.png docs/results/federation/
[ ! -f "$RUNS/bench.txt" ] || cp "$RUNS/bench.txt" docs/results/federation/

#!/bin/sh
# slowdown-guided-ga-federation (SG), Figs. 1-5 under the paper's makespan (max F_i - min I_j over the
# workload's jobs, Sect. 3; --package-start carry), issue 34 item 4. Each figure is one set-up of the
# record (src/schedlab/papers/setups.toml) run by name:
#   schedlab reproduce sg/figN --out RUNS_DIR/figN
# Usage (from the repository root):
#   sh benchmarks/experiments/sg/sg_figures.sh RUNS_DIR [fig1 fig2 fig3 fig4 fig5]
# Every cell is a resumable run folder: re-running the same command continues where it stopped
# (finished runs are read back, a GA resumes from its checkpoint), so the script can be stopped at any
# time (Ctrl-C) and started again. On a shared machine, as docs/results/federation/run.sh:
#   LOCK   e.g. LOCK="flock ../bench.lock": serialise with the other benchmarks
#   SLICE  e.g. SLICE=600: locked sections of at most 10 minutes (SIGINT checkpoints; the next section
#          resumes)
#   NICE   e.g. NICE="nice -n 19"
#   ARGS   more arguments of `reproduce`, e.g. ARGS="--set jobs=200 --set generations=2" (a tiny run)
#          or ARGS="--workers 1" (Figs. 4-5 choose their worker count from the measured evaluation
#          cost; Figs. 1-3 run with --workers 1 so that their time cost is the GA's process CPU)
#   DOCS   e.g. DOCS=docs/results/federation/sg: copy each finished figure's table.md, results.json
#          and charts to DOCS/figN
#   SCHEDLAB  the program (default .venv/bin/schedlab)
# Two streams, one per core (the figures use separate folders):
#   sh benchmarks/experiments/sg/sg_figures.sh runs/sg fig1 fig4 & sh benchmarks/experiments/sg/sg_figures.sh runs/sg fig2 fig3 fig5
#
# Estimated CPU time on one core, from the measured cost (docs/results/federation/README.md, "GA
# speed (issue 34)": one evaluation 0.03 ms on a 100-job package, 0.3 ms on 1,000 jobs; a whole
# GA-METL 500 x 200 run 4.0 s of CPU on 100 jobs, 33.9 s on 1,000; in between taken as linear in the
# package size; an evaluation costs the same under --package-start carry: 0.034 / 0.326 ms measured
# with the previous package's jobs carried). Evaluations of a GA run = generations x population.
#   fig1  10 sizes x 2 GAs x 2,000 jobs at 500 x 200: 68-80 s per GA and size      ~24 min
#   fig2  2 GAs x 2 packages of 1,000 x 500 x (100+200+...+500) generations        ~17 min
#   fig3  2 GAs x 2 packages of 1,000 x 500 generations x (100+200+...+500)       ~17 min
#   fig4  6 workloads x 2 GAs x 20 packages of 100 x 4.0 s                         ~16 min
#   fig5  6 workloads x 2 GAs x 2 packages of 1,000 x 33.9 s                       ~14 min
#   heuristics (JPR, CBS, METL; Figs. 1, 4, 5): seconds.                  total    ~1.5 h
# Wall time on the shared 2-core machine was 1.5-3x the CPU time in past runs (README); two streams
# halve the total when two cores are free.
set -e
RUNS=${1:?usage: sh benchmarks/experiments/sg/sg_figures.sh RUNS_DIR [fig1 fig2 fig3 fig4 fig5]}
shift
FIGS=${*:-fig1 fig2 fig3 fig4 fig5}
LOCK=${LOCK:-}
SLICE=${SLICE:-}
NICE=${NICE:-}
ARGS=${ARGS:-}
DOCS=${DOCS:-}
SCHEDLAB=${SCHEDLAB:-.venv/bin/schedlab}
for fig in $FIGS; do  # refuse a bad name before anything runs
  case $fig in fig1|fig2|fig3|fig4|fig5) ;; *) echo "error: unknown figure $fig (fig1 ... fig5)" >&2; exit 2 ;; esac
done
mkdir -p "$RUNS"

for fig in $FIGS; do
  # a section stopped by SLICE exits 124 (or 130 on Ctrl-C of the section's timeout): the next resumes it
  while :; do
    rc=0
    $LOCK ${SLICE:+timeout -s INT $SLICE} $NICE $SCHEDLAB reproduce "sg/$fig" --out "$RUNS/$fig" $ARGS \
      >> "$RUNS/$fig.log" 2>&1 || rc=$?
    [ $rc = 0 ] && break
    [ $rc = 124 ] || [ $rc = 130 ] || { tail -3 "$RUNS/$fig.log" >&2; exit $rc; }
    sleep 10   # let other lock holders in
  done
  echo "$fig: done, $RUNS/$fig/table.md"
  if [ -n "$DOCS" ]; then
    mkdir -p "$DOCS/$fig"
    cp "$RUNS/$fig/table.md" "$RUNS/$fig/results.json" "$RUNS/$fig"/*.png "$DOCS/$fig/"
  fi
done

#!/bin/sh
# Tables 3/4 and Fig. 7 of genetic-fuzzy-rule-based-scheduling (issues 11, 34): iterative and symbiotic
# rule bases on CTC, KTH, LANL, SDSC-SP2 (SDSC00) and SDSC-Par-1996 (SDSC96). The set-ups (trace,
# processors, scaling, load calibration, objective, budgets) are the record's gf/table3/*, gf/table4/*
# and gf/fig7/* entries (src/schedlab/papers/setups.toml; `schedlab reproduce --list`); this script only
# names the run folders and slices the runs. CTC runs on the papers' 430 processors; CTC338 is the
# variant on the header's 338 (the committed iterative-CTC, symbiotic-CTC and fig7/). SDSC95 is not in
# ../shared/workloads.
# Every step is a resumable run folder; each runs in slices of at most SLICE seconds under the shared
# bench lock (SIGTERM checkpoints, the same command resumes). A SIGTERM to the run alone only ends
# its slice (the script resumes it); to stop everything, signal the script's process group:
# kill -TERM -- -PGID (setsid sh benchmarks/experiments/gf/rules_experiments.sh ... makes it a group of its own).
# Run from the repository root:
#   nice -n 19 sh benchmarks/experiments/gf/rules_experiments.sh [STEP...]
#   steps: iter-W, symb-W for W in CTC CTC338 KTH LANL SDSC00 SDSC96; fig7 (bases trained on CTC at 430,
#   into OUT/fig7-CTC430); fig7-CTC338 (bases trained on 338, into OUT/fig7)
#   GENS=2 overrides the symbiotic runs' generations (a quick run).
set -u
. benchmarks/experiments/gf/rules_lib.sh  # LOCK, SLICE, W, trace, sliced
OUT=${OUT:-docs/results/rules}
WORKERS=${WORKERS:-2}
GENS=${GENS:-}
GREEDY=${GREEDY:-docs/results/ctc1024cal-f2-log/best.json}  # the evolved greedy (f2, ES) on CTC-1024, same objective
export SCHEDLAB_WORKLOADS=${SCHEDLAB_WORKLOADS:-../shared/workloads}
folder() { case $1 in CTC) echo CTC430 ;; CTC338) echo CTC ;; *) echo "$1" ;; esac; }  # run-folder suffix
lower() { echo "$1" | tr 'A-Z' 'a-z'; }
fig7() {  # $1: folder suffix of the CTC-trained bases (CTC430 or CTC), $2: output folder
  mkdir -p "$2"
  for w in CTC KTH LANL SDSC00 SDSC96; do
    name=gf/fig7/$(lower "$w"); [ "$w" = CTC ] && [ "$1" = CTC ] && name=gf/fig7/ctc338
    schedlab reproduce "$name" --set rules="$OUT" --set ctc="$1" --set greedy="$GREEDY" --out "$2/$w.csv" || exit 1
  done
  python benchmarks/experiments/gf/rules_fig7.py "$2"
}
steps=${*:-"iter-CTC symb-CTC iter-KTH iter-LANL iter-SDSC00 iter-SDSC96 symb-KTH symb-LANL symb-SDSC00 symb-SDSC96"}
for step in $steps; do
  name=${step#*-}
  case $step in
    iter-*) sliced schedlab reproduce "gf/table3/$(lower "$name")" --out "$OUT/iterative-$(folder "$name")" --workers "$WORKERS" ;;
    symb-*) sliced schedlab reproduce "gf/table4/$(lower "$name")" ${GENS:+--set generations=$GENS} \
              --out "$OUT/symbiotic-$(folder "$name")" --workers "$WORKERS" ;;
    fig7) fig7 CTC430 "$OUT/fig7-CTC430" ;;
    fig7-CTC338) fig7 CTC "$OUT/fig7" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done

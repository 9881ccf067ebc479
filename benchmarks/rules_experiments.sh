#!/bin/sh
# Tables 3/4 analogues of genetic-fuzzy-rule-based-scheduling (issue 11): iterative and symbiotic
# rule bases on CTC, KTH, LANL, SDSC-SP2 (SDSC00) and SDSC-Par-1996 (SDSC96), each scaled to 1024
# processors and load-calibrated, objective 10*AWRT1 + 4*AWRT2. SDSC95 is not in ../shared/workloads.
# Every step is a resumable run folder; each runs in slices of at most SLICE seconds under the shared
# bench lock (SIGTERM checkpoints, the same command resumes). A SIGTERM to the run alone only ends
# its slice (the script resumes it); to stop everything, signal the script's process group:
# kill -TERM -- -PGID (setsid sh benchmarks/rules_experiments.sh ... makes it a group of its own).
# Run from the repository root:
#   nice -n 19 sh benchmarks/rules_experiments.sh [STEP...]     (steps: iter-CTC symb-CTC iter-KTH ... fig7)
set -u
. benchmarks/rules_lib.sh  # LOCK, SLICE, W, trace, sliced
OUT=${OUT:-docs/results/rules}
SETUP="--scale-to 1024 --calibrate-load --objective 10*AWRT1+4*AWRT2 --workers ${WORKERS:-2}"
GENS=${GENS:-100}
GREEDY=${GREEDY:-docs/results/ctc1024cal-f2-log/best.json}  # the evolved greedy (f2, ES) on CTC-1024, same objective
steps=${*:-"iter-CTC symb-CTC iter-KTH iter-LANL iter-SDSC00 iter-SDSC96 symb-KTH symb-LANL symb-SDSC00 symb-SDSC96"}
for step in $steps; do
  name=${step#*-}
  case $step in
    iter-*) sliced schedlab rules iterative "$(trace "$name")" $SETUP --out "$OUT/iterative-$name" ;;
    symb-*) sliced schedlab rules evolve "$(trace "$name")" $SETUP --generations "$GENS" --seed 1 --out "$OUT/symbiotic-$name" ;;
    fig7)  # Fig. 7: the CTC-trained bases (and EASY) on every workload, then the table and plot
      mkdir -p "$OUT/fig7"
      for w in CTC KTH LANL SDSC00 SDSC96; do
        schedlab compare "$(trace "$w")" --policies "easy,$OUT/symbiotic-CTC/best.json,$OUT/iterative-CTC/best.json,$GREEDY" \
          --scale-to 1024 --calibrate-load --objective "10*AWRT1+4*AWRT2" --csv "$OUT/fig7/$w.csv" || exit 1
      done
      python benchmarks/rules_fig7.py "$OUT/fig7" ;;
  esac
done

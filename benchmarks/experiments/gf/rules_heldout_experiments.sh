#!/bin/sh
# Issue 35: rule bases on workloads they never saw. CTC-trained (430 processors, scaled to 1024,
# load-calibrated, objective 10*AWRT1 + 4*AWRT2) iterative and symbiotic bases with the paper's
# settings (the lead's iterative-CTC430 / symbiotic-CTC430, made by rules_experiments.sh-like
# commands) and with each remedy, then every base on every other shared workload of GF's Table 1
# (KTH, LANL, SDSC00, SDSC96) at 1024 calibrated and at real size; and the time-split check
# (train on the first 6 months, test on the rest) for CTC and SDSC00.
# Every step is a resumable run folder (re-running the same command resumes it), run in slices of at
# most SLICE seconds under the shared bench lock, as benchmarks/experiments/gf/rules_experiments.sh.
# Run from the repository root:
#   nice -n 19 sh benchmarks/experiments/gf/rules_heldout_experiments.sh [STEP...]
# steps: iter-backfill symb-backfill iter-guard symb-guard iter-split symb-split
#        iter-split-SDSC00 symb-split-SDSC00 iter-split-select symb-split-select
#        iter-multiload iter-multiload-backfill table cost
set -u
. benchmarks/experiments/gf/rules_lib.sh  # LOCK, SLICE, W, trace, sliced
OUT=${OUT:-docs/results/rules}
OBJ="10*AWRT1+4*AWRT2"
CTC="$(trace CTC) --procs 430"
SETUP="--scale-to 1024 --calibrate-load --objective $OBJ --workers ${WORKERS:-2}"
GENS=${GENS:-100}
DELTA=${DELTA:-2}  # --util-guard: UTIL points below EASY's before the penalty starts
iter() { sliced schedlab rules iterative $CTC $SETUP "$@"; }
symb() { sliced schedlab rules evolve $CTC $SETUP --generations "$GENS" --seed 1 "$@"; }
# the CTC430-trained bases the table and cost steps report, each method's paper setting first
# (the order of benchmarks/experiments/gf/rules_heldout_table.py)
BASES="iterative-CTC430 iterative-CTC430-backfill iterative-CTC430-guard$DELTA iterative-CTC430-split6-select-backfill
       iterative-CTC430-multiload iterative-CTC430-multiload-backfill symbiotic-CTC430 symbiotic-CTC430-backfill
       symbiotic-CTC430-guard$DELTA symbiotic-CTC430-split6-select-backfill"
steps=${*:-"iter-backfill symb-backfill iter-guard symb-guard iter-split symb-split iter-split-SDSC00 symb-split-SDSC00 iter-split-select symb-split-select iter-multiload iter-multiload-backfill table cost"}
for step in $steps; do
  case $step in
    iter-backfill) iter --strategies backfill --out "$OUT/iterative-CTC430-backfill" ;;
    symb-backfill) symb --strategies backfill --out "$OUT/symbiotic-CTC430-backfill" ;;
    iter-guard) iter --util-guard "$DELTA" --out "$OUT/iterative-CTC430-guard$DELTA" ;;
    symb-guard) symb --util-guard "$DELTA" --out "$OUT/symbiotic-CTC430-guard$DELTA" ;;
    # time split: first 6 months train, the rest held out (history.csv test columns, report, final table)
    iter-split) iter --split-months 6 --out "$OUT/iterative-CTC430-split6" ;;
    symb-split) symb --split-months 6 --out "$OUT/symbiotic-CTC430-split6" ;;
    iter-split-SDSC00) sliced schedlab rules iterative "$(trace SDSC00)" $SETUP --split-months 6 --out "$OUT/iterative-SDSC00-split6" ;;
    symb-split-SDSC00) sliced schedlab rules evolve "$(trace SDSC00)" $SETUP --generations "$GENS" --seed 1 --split-months 6 \
                         --out "$OUT/symbiotic-SDSC00-split6" ;;
    # selection on the held-out months (validation), with the backfill set
    iter-split-select) iter --split-months 6 --select test --strategies backfill --out "$OUT/iterative-CTC430-split6-select-backfill" ;;
    # training on several workloads: CTC at two load levels, its real size (430) and scaled to 1024,
    # load-calibrated, as two traces (one --procs / --scale-to serves every trace, so both go in as files;
    # TRACES holds them, made here once)
    iter-multiload|iter-multiload-backfill)
      T=${TRACES:-runs/traces}; mkdir -p "$T"
      [ -f "$T/CTC-SP2-430.swf.gz" ] || schedlab workload clean $CTC -o "$T/CTC-SP2-430.swf.gz" || exit 1
      [ -f "$T/CTC-SP2-430-1024cal.swf.gz" ] || schedlab workload scale "$T/CTC-SP2-430.swf.gz" --scale-to 1024 \
        --calibrate-load -o "$T/CTC-SP2-430-1024cal.swf.gz" || exit 1
      if [ "$step" = iter-multiload ]; then set --; else set -- --strategies backfill; fi
      sliced schedlab rules iterative "$T/CTC-SP2-430.swf.gz" "$T/CTC-SP2-430-1024cal.swf.gz" --objective "$OBJ" \
        --workers "${WORKERS:-2}" "$@" --out "$OUT/iterative-CTC430-multiload${1:+-backfill}" ;;
    symb-split-select) symb --split-months 6 --select test --strategies backfill --out "$OUT/symbiotic-CTC430-split6-select-backfill" ;;
    table)  # every finished CTC430 base on the other workloads, 1024 calibrated and real size (gate at 5 %)
      mkdir -p "$OUT/heldout35"
      for run in $BASES; do
        [ -f "$OUT/$run/comparison.json" ] || { echo "skip $run (not finished)" >&2; continue; }
        others="$(trace KTH) $(trace LANL) $(trace SDSC00) $(trace SDSC96)"
        nice -n 19 schedlab evolve compare "$OUT/$run/best.json" $others --objective "$OBJ" --scale-to 1024 --calibrate-load \
          --json > "$OUT/heldout35/$run-1024cal.json"
        nice -n 19 schedlab evolve compare "$OUT/$run/best.json" $others --objective "$OBJ" \
          --json > "$OUT/heldout35/$run-real.json"
      done ;;
    cost)  # training time (history.csv's last elapsed, s) of each finished run
      for run in $BASES; do
        [ -f "$OUT/$run/history.csv" ] && echo "$run $(\
          python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[-1]["elapsed"], "s")' "$OUT/$run/history.csv")"
      done ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done

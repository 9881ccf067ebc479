#!/bin/bash
# Apply strategies (RUN/best.json ...) to every trace of ../shared/workloads at real size and scaled to 1024,
# one 'evolve compare --json' per trace (CTC-SP2 read on 430 processors, RICC-2010-2 on 8192 as its MANIFEST says).
# Then: python3 cross_traces_table.py OUT docs/results/ctc430-f2-easy/cross_traces.md docs/results/ctc430-f2-easy/cross_traces.json ctc430-f2-easy-long ctc430-f2-easy ctc430-f2-log-easy-dispatch
cd "$(dirname "$0")/../../.."  # the repository root
OUT=${OUT:-cross-out}; mkdir -p $OUT
for f in ../shared/workloads/*.swf.gz; do
  name=$(basename $f .swf.gz)
  procs=""; [ "$name" = "CTC-SP2-1996-3.1-cln" ] && procs="--procs 430"; [ "$name" = "RICC-2010-2" ] && procs="--procs 8192"
  for size in real 1024; do
    scale=""; [ $size = 1024 ] && scale="--scale-to 1024"
    for strat in "$@"; do
      sname=$(basename $(dirname $strat))
      [ -s $OUT/$sname.$name.$size.json ] && continue
      timeout 600 nice -n 19 .venv/bin/schedlab evolve compare $strat $f $procs $scale --json > $OUT/$sname.$name.$size.json 2> $OUT/$sname.$name.$size.err
      echo "$sname $name $size rc=$? $(date -u +%T)"
    done
  done
done

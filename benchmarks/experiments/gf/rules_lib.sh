# Shared by the rules benchmark scripts (sourced from the repository root): the GF Table 1 traces
# by short name and the sliced runner under the shared bench lock.
LOCK=${LOCK:-${TMPDIR:-/tmp}/schedlab-bench.lock}
SLICE=${SLICE:-540}
W=${W:-../shared/workloads}
trace() {
  case $1 in
    CTC) echo $W/CTC-SP2-1996-3.1-cln.swf.gz ;; KTH) echo $W/KTH-SP2-1996-2.1-cln.swf.gz ;;
    LANL) echo $W/LANL-CM5-1994-4.1-cln.swf.gz ;; SDSC00) echo $W/SDSC-SP2-1998-4.2-cln.swf.gz ;;
    SDSC96) echo $W/SDSC-Par-1996-3.1-cln.swf.gz ;;
  esac
}
sliced() {  # run "$@" in lock slices until it finishes (exit 0) or fails (exit != 143/130)
  while :; do
    flock "$LOCK" timeout -s TERM "$SLICE" nice -n 19 "$@"
    rc=$?
    [ $rc -eq 124 ] || [ $rc -eq 143 ] || [ $rc -eq 130 ] || return $rc
    echo "slice over (exit $rc): resuming $*" >&2
  done
}

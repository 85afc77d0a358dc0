#!/bin/bash
# fuzz_long.sh — one long libFuzzer run of a live-device harness (make
# fuzz-long, testbench/fuzz/fuzz.mk): RUNS executions on ENGINE (model or rtl,
# HCASIM_FUZZ_ENGINE) from CORPUS, timed, with its summary line — executions,
# wall time, rate, crashes (artifacts written), corpus size, peak RSS —
# printed and appended to SUMMARY. Exit 1 on a finding (libFuzzer stops at
# the first one and writes it to ARTIFACTS).
#
# usage: fuzz_long.sh NAME BINARY ENGINE RUNS CORPUS ARTIFACTS LOG SUMMARY [libFuzzer options...]
set -u
if [ $# -lt 8 ]; then
    echo "usage: $0 NAME BINARY ENGINE RUNS CORPUS ARTIFACTS LOG SUMMARY [options...]" >&2
    exit 2
fi
name=$1 bin=$2 engine=$3 runs=$4 corpus=$5 artifacts=$6 log=$7 summary=$8
shift 8
mkdir -p "$corpus" "$artifacts" "$(dirname "$log")" "$(dirname "$summary")"
before=$(find "$artifacts" -type f | wc -l)
echo "fuzz-long $name ($engine engine): $runs executions from $corpus ($(ls "$corpus" | wc -l) inputs), log $log"
t0=$(date +%s.%N)
HCASIM_FUZZ_ENGINE=$engine "$bin" -runs="$runs" -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "$corpus" >"$log" 2>&1
rc=$?
t1=$(date +%s.%N)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
crashes=$(($(find "$artifacts" -type f | wc -l) - before))
line=$(awk -v n="${execs:-0}" -v a="$t0" -v b="$t1" -v name="$name" -v e="$engine" -v c="$crashes" \
           -v k="$(ls "$corpus" | wc -l)" -v r="${rss:-?}" -v rc="$rc" -v d="$(date -u +%FT%TZ)" \
    'BEGIN { s = b - a; printf "%s %s fuzz_%s %s engine: %d executions in %.1f s (%.0f/s), %d crash(es), exit %d, corpus %d inputs, peak RSS %s MB", d, (c || rc ? "FINDING" : "ok"), name, e, n, s, (s > 0 ? n / s : 0), c, rc, k, r }')
echo "$line" | tee -a "$summary"
grep '^fuzz live device' "$log" || true
if [ "$rc" != 0 ] || [ "$crashes" != 0 ]; then
    tail -40 "$log"
    echo "fuzz-long $name: FINDING in $artifacts/"
    exit 1
fi

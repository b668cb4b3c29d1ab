#!/usr/bin/env bash
# `make test`: the layering rules, cppcheck, unit tests, the simulated-CPU matrix, QEMU boot tests. Each
# part prints "<part>: N passed, N failed[, N skipped]"; this prints the total.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run() {
  echo "== $1"
  shift
  local t0=$SECONDS
  "$@" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  echo "== ($((SECONDS - t0)) s)"
}
run "layers (includes, cycles, shipped sources, sizes)" \
  sh -c 'scripts/layers.py --self-test && scripts/layers.py'
run "static analysis (cppcheck, make lint)" sh -c 'if make --no-print-directory lint; then
  echo "lint: 1 passed, 0 failed"; else echo "lint: 0 passed, 1 failed"; exit 1; fi'
run "C format (clang-format: make format-check)" sh -c 'if make --no-print-directory format-check; then
  echo "format: 1 passed, 0 failed"; else echo "format: 0 passed, 1 failed"; exit 1; fi'
run "Python (pyflakes, mypy: make pycheck)" sh -c 'if make --no-print-directory pycheck; then
  echo "pycheck: 1 passed, 0 failed"; else echo "pycheck: 0 passed, 1 failed"; exit 1; fi'
run "unit tests (cmocka, ASan+UBSan)" scripts/run-unit.sh build/host/unit/*
run "simulated CPUs, realism all, 25 seeds (optimised build)" \
  scripts/sim-matrix.py build/host/pmuharness-sim-fast
run "simulated CPUs, realism all, 2 seeds healthy, 1 per fault (ASan+UBSan build)" \
  env SIM_SEEDS=2 SIM_FAULT_SEEDS=1 scripts/sim-matrix.py build/host/pmuharness-sim
run "a bare make in a clean clone (the default goal)" host/test_bare_make.py
run "the house's inventory (drivers: name, ops, model, tests; checks: a docs row)" \
  host/test_house.py build/host/pmuharness-sim-fast
run "CPUID dump replay (typed snippets)" host/test_cpuid_replay.py build/host/pmuharness-sim-fast
# a smoke run of each parser's fuzzer; `make fuzz` hunts longer (30 s each)
run "fuzzing (libFuzzer, ${FUZZ_SECONDS:=10} s per target)" env FUZZ_SECONDS="$FUZZ_SECONDS" scripts/fuzz.sh
run "results JSON against its schema (simulator and a QEMU boot)" \
  host/report/test_schema.py build/host/pmuharness-sim-fast build/pmuharness.efi
run "LAVA job files against lava-common's schema" host/lava/test_jobs.py
# The tests that boot QEMU, two at a time (scripts/run-qemu-tests.sh), each
# under its own heading: the boot tests, the boot matrix, the report tool
# (fixtures and one boot), LAVA's signals through lava-dispatcher's patterns
# against the results (simulator and QEMU)
run "QEMU boot tests, boot matrix, report tool, LAVA signals" \
  scripts/run-qemu-tests.sh build/pmuharness.efi host/qemu/test_*.py host/qemu/boot_matrix.py \
  host/report/test_report.py host/lava/lava_check.py
p=0; f=0; s=0
while read -r a b c d; do p=$((p + a)); f=$((f + b)); s=$((s + ${c:-0})); done < <(
  sed -n 's/^[a-z-]*: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\?$/\1 \2 \4/p' "$log")
echo "$p passed, $f failed, $s skipped"
[ $status -eq 0 ] && [ $f -eq 0 ]

#!/usr/bin/env bash
# Runs each cmocka unit-test program; prints one line per program and a total.
set -u
pass=0; fail=0
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  n=${n:-0}; f=${f:-0}
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi  # a crash or sanitizer report
  pass=$((pass + n)); fail=$((fail + f))
  if [ $rc -eq 0 ]; then echo "unit: $(basename "$t"): $n passed"
  else echo "unit: $(basename "$t"): FAILED (exit $rc)"; printf '%s\n' "$out" | grep -v '^\[ *\(RUN\|OK\) *\]' | tail -30; fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ]

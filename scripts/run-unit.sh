#!/usr/bin/env bash
# Runs each cmocka unit-test program, UNIT_JOBS (default 2) at a time;
# prints one line per program, in the order given, and a total.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
for t in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "${UNIT_JOBS:-2}" ]; do wait -n; done
  ( "$t" >"$dir/$i.out" 2>&1; echo $? >"$dir/$i.rc" ) &
  i=$((i + 1))
done
wait
pass=0; fail=0; i=0
for t in "$@"; do
  out=$(cat "$dir/$i.out"); rc=$(cat "$dir/$i.rc"); i=$((i + 1))
  n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  n=${n:-0}; f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" = 0 ]; then f=1; fi  # a crash or sanitizer report
  pass=$((pass + n)); fail=$((fail + f))
  if [ "$rc" -eq 0 ]; then echo "unit: $(basename "$t"): $n passed"
  else echo "unit: $(basename "$t"): FAILED (exit $rc)"; printf '%s\n' "$out" | grep -v '^\[ *\(RUN\|OK\) *\]' | tail -30; fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ]

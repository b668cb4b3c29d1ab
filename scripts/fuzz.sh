#!/usr/bin/env bash
# `make fuzz` and the fuzz part of `make test`: runs each libFuzzer target in
# build/fuzz for FUZZ_SECONDS (default 30) from a fresh copy of its seed corpus
# (host/fuzz/corpus/NAME; the source tree is never written). A target passes
# when it runs its time without a crash, leak, UB or broken-promise report; the
# self-test passes when its planted crash is caught. Prints
# "fuzz: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
out=build/fuzz
pass=0
fail=0

# run NAME: fuzzes one target; its exit status is libFuzzer's.
run() {
  local name=$1 work=$out/work/$1 dict=
  case $name in
    config | args | set | cmdline) dict=host/fuzz/options.dict ;;
    event) dict=host/fuzz/event.dict ;;
  esac
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp host/fuzz/corpus/"$name"/* "$work/corpus/" 2>/dev/null
  local args=(-seed=1 -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10
              -print_final_stats=1 -artifact_prefix="$work/artifacts/")
  [ -n "$dict" ] && args+=(-dict="$dict")
  # the outer timeout catches a target that hangs libFuzzer itself
  timeout $((secs + 120)) "$out/$name" "${args[@]}" "$work/corpus" >"$work/log" 2>&1
}

# The reproducer libFuzzer left, or the log when there is none.
evidence() {
  local f
  f=$(ls "$out/work/$1/artifacts/"* 2>/dev/null | head -1)
  echo "${f:-$out/work/$1/log}"
}

# check NAME: fuzzes one target and prints its verdict line(s); the first
# word says passed or FAILED.
check() {
  local name=$1 rc runs rep
  if [ ! -x "$out/$name" ]; then
    echo "fuzz.$name: FAILED: $out/$name not built (make fuzz-build)"
    return
  fi
  run "$name"
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/work/$name/log")
  if [ "$name" = selftest ]; then
    rep=$(evidence "$name")
    if [ $rc -ne 0 ] && head -c 7 "$rep" 2>/dev/null | grep -q PLANTED; then
      echo "fuzz.selftest: passed: the planted crash was caught ($rep)"
    else
      echo "fuzz.selftest: FAILED: the planted crash was not caught (exit $rc, $out/work/$name/log)"
    fi
  elif [ $rc -eq 0 ] && [ -z "$(ls "$out/work/$name/artifacts")" ]; then
    echo "fuzz.$name: passed: ${runs:-?} inputs in ${secs} s, no report"
  else
    echo "fuzz.$name: FAILED (exit $rc): reproducer $(evidence "$name"), log $out/work/$name/log"
    grep -m3 -E 'ERROR|promise broken|runtime error' "$out/work/$name/log" | sed 's/^/  /'
  fi
}

# Two targets at a time (FUZZ_JOBS): each is one process on one core, and
# the verdicts are printed in the targets' order once all have run.
jobs_max=${FUZZ_JOBS:-2}
names=()
mkdir -p "$out/work"
for src in host/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  name=${name#fuzz_}
  names+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  check "$name" >"$out/work/$name.verdict" 2>&1 &
done
wait
for name in "${names[@]}"; do
  cat "$out/work/$name.verdict"
  if head -1 "$out/work/$name.verdict" | grep -q ': passed'; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
  fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail -eq 0 ]

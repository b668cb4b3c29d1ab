#!/usr/bin/env bash
# `make run`: boots the harness in QEMU+OVMF with the serial console on the
# terminal, our own lines only (scripts/serial-plain.py); QEMU exits by
# itself at the end (on_finish = qemu-exit). The volume build/run-esp is
# kept between runs, so each run's results files get the next number.
#   make run CPU=<qemu cpu model>   another CPU identity (default Skylake-Client)
#   make run KVM=1                  -enable-kvm -cpu host (a real virtual PMU)
#   make run SMP=4 CFG='checks = apic.*'   more CPUs, extra config lines
set -uo pipefail
efi=$1
cpu=${CPU:-Skylake-Client}
args=(--cpu "$cpu" --smp "${SMP:-1}" --serial - --timeout "${TIMEOUT:-120}")
[ "${KVM:-0}" = 1 ] && args+=(--kvm)
cfg=$(printf 'on_finish = qemu-exit\n%s\n' "${CFG:-}")
esp=${RUN_ESP:-build/run-esp}
dir=$esp/EFI/BOOT
mkdir -p "$dir"
before=$(ls "$dir"/pmuharness-*.json 2>/dev/null | tail -n 1)
"$(dirname "$0")/qemu-boot.sh" "$efi" "${args[@]}" --esp "$esp" --cfg "$cfg" 2>&1 |
  "$(dirname "$0")/serial-plain.py"
rc=${PIPESTATUS[0]}
newest=$(ls "$dir"/pmuharness-*.json 2>/dev/null | tail -n 1)
where="no results files"
[ -n "$newest" ] && [ "$newest" != "$before" ] && where="results in ${newest%.json}.log and .json"
# QEMU exits with (debug-exit value << 1) | 1; the value is the verdict's
# (README "Exit codes"), and so is this script's status.
case $rc in
  1) echo "run: verdict: PASS ($where)"; exit 0 ;;
  3) echo "run: verdict: FAIL, a check failed ($where)"; exit 1 ;;
  5) echo "run: verdict: ERROR, the harness could not run ($where)"; exit 2 ;;
  7) echo "run: verdict: NO PMU, nothing usable to validate ($where)"; exit 3 ;;
  9) echo "run: verdict: NO VERDICT, no check measured the PMU ($where)"; exit 4 ;;
  0) echo "run: QEMU stopped without a verdict (the harness did not reach its end)"; exit 5 ;;
  124) echo "run: QEMU did not finish within its time limit"; exit 124 ;;
  64) exit 64 ;;  # KVM=1 without a usable /dev/kvm: qemu-boot.sh said why
  66) echo "run: QEMU failed to start (CPU=$cpu; its message is above): no verdict"; exit 66 ;;
  *) echo "run: QEMU exited with status $rc"; exit "$rc" ;;
esac

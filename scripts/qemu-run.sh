#!/usr/bin/env bash
# `make run`: boots the harness in QEMU+OVMF with the serial console on the
# terminal; QEMU exits by itself at the end (on_finish = qemu-exit).
#   make run CPU=<qemu cpu model>   another CPU identity (default Skylake-Client)
#   make run KVM=1                  -enable-kvm -cpu host (a real virtual PMU)
#   make run SMP=4 CFG='checks = apic.*'   more CPUs, extra config lines
set -uo pipefail
efi=$1
cpu=${CPU:-Skylake-Client}
args=(--cpu "$cpu" --smp "${SMP:-1}" --serial - --timeout "${TIMEOUT:-120}")
[ "${KVM:-0}" = 1 ] && args+=(--kvm)
cfg=$(printf 'on_finish = qemu-exit\n%s\n' "${CFG:-}")
esp=build/run-esp
rm -rf "$esp"; mkdir -p "$esp"
"$(dirname "$0")/qemu-boot.sh" "$efi" "${args[@]}" --esp "$esp" --cfg "$cfg"
rc=$?
case $rc in
  1) echo "run: verdict: no check failed (results in $esp/EFI/BOOT/)"; exit 0 ;;
  3) echo "run: verdict: a check FAILED (results in $esp/EFI/BOOT/)"; exit 1 ;;
  5) echo "run: verdict: the harness could not run"; exit 2 ;;
  124) echo "run: QEMU did not finish within its time limit"; exit 124 ;;
  64) exit 64 ;;  # KVM=1 without a usable /dev/kvm: qemu-boot.sh said why
  *) echo "run: QEMU exited with status $rc"; exit "$rc" ;;
esac

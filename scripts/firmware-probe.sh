#!/usr/bin/env bash
# Boots OVMF alone until it first writes to COM1, then stops it: whether
# an accelerator can run a guest here (/dev/kvm can open and still not
# run one, with nested virtualisation off). Returns as soon as the
# firmware speaks, so a working KVM costs about a second, not the limit.
# Usage: firmware-probe.sh LIMIT_S OVMF_CODE OVMF_VARS QEMU-ACCEL-ARGS...
# Exit status 0 when the firmware reached COM1 within LIMIT_S; 1 otherwise,
# with QEMU's first lines of errors on stderr.
set -u
limit=$1 code=$2 vars=$3; shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmh-probe.XXXXXX")
trap 'rm -rf "$dir"' EXIT
qemu-system-x86_64 "$@" -machine q35 -nodefaults -display none -no-reboot -net none \
  -drive if=pflash,format=raw,unit=0,readonly=on,file="$code" \
  -drive if=pflash,format=raw,unit=1,snapshot=on,file="$vars" \
  -serial file:"$dir/com1" </dev/null >/dev/null 2>"$dir/err" &
pid=$!
ticks=$((limit * 10))  # tenths of a second: $SECONDS counts whole ones
while [ $ticks -gt 0 ] && kill -0 $pid 2>/dev/null && [ ! -s "$dir/com1" ]; do
  sleep 0.1; ticks=$((ticks - 1))
done
kill $pid 2>/dev/null; wait $pid 2>/dev/null
if [ -s "$dir/com1" ] && ! grep -q "KVM internal error" "$dir/err"; then
  exit 0
fi
head -3 "$dir/err" >&2
exit 1

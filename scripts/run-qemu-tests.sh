#!/usr/bin/env bash
# Runs the QEMU test programs given, QEMU_JOBS (default 2) at a time (each
# boots QEMU mostly on one host core), the longest first; prints each one's
# output under its heading in the order given, with its seconds. Exit 1 when
# any failed. Usage: run-qemu-tests.sh EFI TEST...
set -u
efi=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Longest first (seconds measured on a 2-core build machine), so that the
# two lanes end together; a test not listed here starts last.
order=(test_mp test_usb test_netboot test_bad_setup test_screen test_results_volume
  test_usb_hybrid test_bios_results boot_matrix test_report test_secureboot)
queue=()
for n in "${order[@]}"; do
  for t in "$@"; do [ "$(basename "$t" .py)" = "$n" ] && queue+=("$t"); done
done
for t in "$@"; do
  case " ${order[*]} " in *" $(basename "$t" .py) "*) ;; *) queue+=("$t") ;; esac
done
for t in "${queue[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${QEMU_JOBS:-2}" ]; do wait -n; done
  n=$(basename "$t" .py)
  ( s=$SECONDS; "$t" "$efi" >"$dir/$n.out" 2>&1; echo "$? $((SECONDS - s))" >"$dir/$n.rc" ) &
done
wait
status=0
for t in "$@"; do
  n=$(basename "$t" .py)
  read -r rc secs <"$dir/$n.rc"
  echo "== QEMU: $n ($secs s)"
  cat "$dir/$n.out"
  [ "$rc" -eq 0 ] || status=1
done
exit $status

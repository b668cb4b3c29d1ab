#!/usr/bin/env bash
# `make run`: boots the harness in QEMU+OVMF with the serial console on the
# terminal, our own lines only (scripts/serial-plain.py); QEMU exits by
# itself at the end (on_finish = qemu-exit). The volume build/run-esp is
# kept between runs, so each run's results files get the next number.
#   make run CPU=<qemu cpu model>   another CPU identity (default Skylake-Client)
#   make run KVM=1                  -enable-kvm -cpu host (a real virtual PMU)
#   make run SMP=4 CFG='checks = apic.*'   more CPUs, extra config lines
#   make run BOOT=bios [CPU=pentium3]  the Multiboot kernel under SeaBIOS
#                                      (qemu-system-i386 -kernel; CFG as its module)
#   make run BOOT=bios-usb             a copy of the stick image (USB_IMG=, default
#                                      build/pmuharness-usb.img) as usb-storage, SeaBIOS
#   make run BOOT=net                  OVMF boots this binary over TFTP, no disk (CFG
#                                      in the TFTP folder as pmuharness.cfg)
#   make run BOOT=net IPXE=1           the same through virtio-net's default ROM,
#                                      iPXE (IPXE=script: iPXE runs pmuharness.ipxe)
#   make run BOOT=bios-net             SeaBIOS PXE: iPXE runs pmuharness.ipxe, which
#                                      chains the Multiboot kernel and its cfg
set -uo pipefail
efi=$1
here=$(dirname "$0")
boot=${BOOT:-uefi}
args=(--smp "${SMP:-1}" --serial - --timeout "${TIMEOUT:-120}")
[ "${KVM:-0}" = 1 ] && args+=(--kvm)
cfg=$(printf 'on_finish = qemu-exit\n%s\n' "${CFG:-}")
where="no results files"
case $boot in
  uefi)
    cpu=${CPU:-Skylake-Client}
    esp=${RUN_ESP:-build/run-esp}
    dir=$esp/EFI/BOOT
    mkdir -p "$dir"
    before=$(ls "$dir"/pmuharness-*.json 2>/dev/null | tail -n 1)
    "$here/qemu-boot.sh" "$efi" --cpu "$cpu" "${args[@]}" --esp "$esp" --cfg "$cfg" 2>&1 |
      "$here/serial-plain.py"
    rc=${PIPESTATUS[0]}
    newest=$(ls "$dir"/pmuharness-*.json 2>/dev/null | tail -n 1)
    [ -n "$newest" ] && [ "$newest" != "$before" ] && where="results in ${newest%.json}.log and .json"
    ;;
  bios)
    cpu=${CPU:-pentium3}
    "$here/bios-boot.sh" "$(dirname "$efi")/pmuharness-i686.elf" --cpu "$cpu" "${args[@]}" \
      --cfg "$cfg" 2>&1 | "$here/serial-plain.py"
    rc=${PIPESTATUS[0]}
    where="results on the console only"
    ;;
  bios-usb)
    # A copy of the stick with the run's cfg, so the built image stays as made.
    cpu=${CPU:-pentium3}
    stick=$(mktemp "${TMPDIR:-/tmp}/pmh-run-usb.XXXXXX")
    trap 'rm -f "$stick" "$stick.cfg"' EXIT
    cp --sparse=always "${USB_IMG:-$(dirname "$efi")/pmuharness-usb.img}" "$stick" || exit 2
    first=$(od -An -tu4 -j454 -N4 "$stick" | tr -d ' ')   # partition 1's first LBA (MBR)
    printf '%s\n' "$cfg" > "$stick.cfg"
    MTOOLS_SKIP_CHECK=1 mcopy -o -i "$stick@@$((first * 512))" "$stick.cfg" \
      ::/EFI/BOOT/pmuharness.cfg || exit 2
    "$here/bios-boot.sh" none --cpu "$cpu" "${args[@]}" --usb "$stick" 2>&1 |
      "$here/serial-plain.py"
    rc=${PIPESTATUS[0]}
    where="results on the console only"
    ;;
  net|bios-net)
    # A TFTP folder laid out as make tftp's, with the run's cfg.
    tftp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-run-tftp.XXXXXX")
    trap 'rm -rf "$tftp"' EXIT
    printf '%s\n' "$cfg" > "$tftp/pmuharness.cfg"
    if [ "$boot" = net ]; then
      cpu=${CPU:-Skylake-Client}
      cp "$efi" "$tftp/pmuharness.efi" && cp "$here/../boot/net/pmuharness.ipxe" "$tftp"/ ||
        exit 2
      ipxe=()
      case ${IPXE:-0} in
        1) ipxe=(--ipxe) ;;
        script) ipxe=(--ipxe --bootfile pmuharness.ipxe) ;;
      esac
      "$here/qemu-boot.sh" "$efi" --cpu "$cpu" "${args[@]}" --tftp "$tftp" "${ipxe[@]}" 2>&1 |
        "$here/serial-plain.py"
    else
      cpu=${CPU:-pentium3}
      cp "$(dirname "$efi")/pmuharness-i686.elf" "$here/../boot/net/pmuharness.ipxe" "$tftp"/ ||
        exit 2
      "$here/bios-boot.sh" none --cpu "$cpu" "${args[@]}" --pxe "$tftp" 2>&1 |
        "$here/serial-plain.py"
    fi
    rc=${PIPESTATUS[0]}
    where="network boot: results on the console only"
    ;;
  *) echo "run: BOOT=$boot: expected uefi, bios, bios-usb, net or bios-net" >&2; exit 2 ;;
esac
# QEMU exits with (debug-exit value << 1) | 1; the value is the verdict's
# (docs/user-guide.md "Exit codes"), and so is this script's status.
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

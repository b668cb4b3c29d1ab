#!/usr/bin/env bash
# Boots an EFI binary in QEMU+OVMF from a FAT folder, as \EFI\BOOT\BOOTX64.EFI.
# Usage: qemu-boot.sh EFI [--cpu MODEL] [--smp N] [--kvm] [--esp DIR]
#                        [--cfg TEXT] [--serial FILE|-|unix:PATH] [--timeout S]
#                        [--prepared] [--usb IMG] [--ro] [--secboot] [--tftp DIR]
#                        [--ipxe] [--bootfile NAME] [--mttcg] [-- extra qemu args]
#   --prepared  boot the --esp folder as it is (EFI is not copied, no cfg is
#               written), e.g. a folder without BOOTX64.EFI so that OVMF falls
#               through to its UEFI shell and runs startup.nsh; the whole
#               volume is copied back
#   --usb IMG   boot the raw disk image IMG as a USB stick (qemu-xhci +
#               usb-storage), written in place; EFI, --esp and --cfg are unused
#   --tftp DIR  network boot, no disk: QEMU's user network serves DIR over
#               TFTP with pmuharness.efi as the DHCP boot file (OVMF's own
#               virtio-net driver and PXE); EFI, --esp and --cfg are unused
#   --ipxe      with --tftp: virtio-net keeps QEMU's default option ROM
#               (efi-virtio.rom, iPXE), so iPXE loads the boot file instead
#   --bootfile NAME  with --tftp: the DHCP boot file (default pmuharness.efi),
#               e.g. an iPXE script that iPXE runs
#   --ro        attach the boot drive read-only
#   --secboot   Secure Boot firmware with Debian's snakeoil keys enrolled
#               (SMM, secure pflash); only binaries signed with them boot
#   --serial unix:PATH  COM1 on a listening socket (QEMU waits for a client)
#   --mttcg     TCG with one host thread per vCPU (-accel tcg,thread=multi), so
#               that CPUs of the guest run at once (x86 guests on x86 hosts
#               support it); without it QEMU chooses (no effect with --kvm)
# Exit status: QEMU's ((debug-exit value << 1) | 1), 124 on timeout, 64 when KVM
# was asked for and /dev/kvm is missing or unusable, 66 when QEMU failed to
# start (its message on stderr), never 1 (PASS) for that.
set -euo pipefail
efi=$1; shift
cpu=qemu64; smp=1; kvm=0; esp=""; cfg="on_finish = qemu-exit"; serial=-; tmo=60; prepared=0
usb=""; ro=0; secboot=0; tftp=""; mttcg=0; ipxe=0; bootfile=pmuharness.efi
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) cpu=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --kvm) kvm=1; shift ;;
    --esp) esp=$2; shift 2 ;;
    --cfg) cfg=$2; shift 2 ;;
    --serial) serial=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --prepared) prepared=1; shift ;;
    --usb) usb=$2; shift 2 ;;
    --ro) ro=1; shift ;;
    --secboot) secboot=1; shift ;;
    --tftp) tftp=$2; shift 2 ;;
    --ipxe) ipxe=1; shift ;;
    --bootfile) bootfile=$2; shift 2 ;;
    --mttcg) mttcg=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "qemu-boot.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ovmf_code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
ovmf_vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
machine=q35; sb=()
if [ "$secboot" = 1 ]; then
  # Debian's ovmf: the SMM-enforcing Secure Boot build and a variable store
  # with the snakeoil key in PK, KEK and db (Secure Boot already on).
  ovmf_code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
  ovmf_vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd}
  machine=q35,smm=on; sb=(-global driver=cfi.pflash01,property=secure,value=on)
fi
vars=$(mktemp "${TMPDIR:-/tmp}/pmh-vars.XXXXXX")
img=$(mktemp "${TMPDIR:-/tmp}/pmh-img.XXXXXX")
cp "$ovmf_vars" "$vars"
trap 'rm -f "$vars" "$img"' EXIT
ronly=""; [ "$ro" = 1 ] && ronly=",readonly=on"
if [ -n "$tftp" ]; then
  rom=",romfile="; [ "$ipxe" = 1 ] && rom=""
  disk=(-netdev user,id=n0,tftp="$tftp",bootfile="$bootfile"
        -device virtio-net-pci,netdev=n0$rom,bootindex=0)
elif [ -n "$usb" ]; then
  disk=(-device qemu-xhci,id=xhci -drive if=none,id=stick,format=raw,file="$usb"$ronly
        -device usb-storage,bus=xhci.0,drive=stick,bootindex=0)
elif [ "$prepared" = 1 ]; then
  [ -n "$esp" ] && [ -d "$esp" ] || { echo "qemu-boot.sh: --prepared needs an existing --esp folder" >&2; exit 2; }
else
  [ -n "$esp" ] || esp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-esp.XXXXXX")
  mkdir -p "$esp/EFI/BOOT"
  cp "$efi" "$esp/EFI/BOOT/BOOTX64.EFI"
  [ "$cfg" = "none" ] || printf '%s\n' "$cfg" > "$esp/EFI/BOOT/pmuharness.cfg"
fi
if [ -z "$usb$tftp" ]; then
  # A real FAT image (QEMU's vvfat write-back loses files); results are copied
  # back into the folder afterwards.
  rm -f "$img"
  mkfs.fat -C -n PMUHARNESS "$img" 32768 >/dev/null
  mcopy -s -i "$img" "$esp"/* ::/
  disk=(-drive format=raw,file="$img"$ronly)
fi

accel=(-accel tcg); [ "$mttcg" = 1 ] && accel=(-accel tcg,thread=multi)
cpuarg=(-cpu "$cpu")
if [ "$kvm" = 1 ]; then
  if [ ! -e /dev/kvm ]; then echo "error: KVM=1 but /dev/kvm does not exist on this machine" >&2; exit 64; fi
  if ! { exec 9<>/dev/kvm; } 2>/dev/null; then echo "error: KVM=1 but /dev/kvm cannot be opened (permissions or nested virtualisation off)" >&2; exit 64; fi
  exec 9>&-
  # /dev/kvm can open and still not run a guest (nested virtualisation
  # off): the firmware alone must reach COM1 (it stops as soon as it does).
  if ! perr=$("$(dirname "$0")/firmware-probe.sh" 15 "$ovmf_code" "$vars" -enable-kvm -cpu host 2>&1); then
    echo "error: KVM=1 but KVM cannot run a guest here (the firmware did not start within 15 s):" >&2
    printf '%s\n' "$perr" | head -3 >&2
    exit 64
  fi
  accel=(-enable-kvm); cpuarg=(-cpu host)
fi
case $serial in
  -) sargs=(-serial stdio) ;;
  unix:*) sargs=(-serial "$serial,server=on,wait=on") ;;
  *) sargs=(-serial "file:$serial") ;;
esac

qargs=(-machine "$machine" "${sb[@]}" "${accel[@]}" "${cpuarg[@]}"
  -smp "$smp" -m 256 -nodefaults -vga none -display none -no-reboot -net none
  -drive if=pflash,format=raw,unit=0,readonly=on,file="$ovmf_code"
  -drive if=pflash,format=raw,unit=1,file="$vars"
  "${disk[@]}"
  -device isa-debug-exit,iobase=0xf4,iosize=0x04)
# QEMU's own start-up failure (a bad -cpu model, a missing file) exits 1,
# which is also the PASS status: the same machine is set up first with the
# CPU stopped (-S) and quit from the monitor, so a failure there is told
# apart (status 66) before the real boot.
perr=$(printf 'quit\n' | timeout -k 2 30 qemu-system-x86_64 "${qargs[@]}" -S -monitor stdio \
  -serial null "${extra[@]}" 2>&1 >/dev/null) || {
  echo "qemu-boot.sh: QEMU failed to start:" >&2
  printf '%s\n' "$perr" | head -5 >&2
  exit 66
}
set +e
timeout --foreground -k 5 "$tmo" qemu-system-x86_64 "${qargs[@]}" \
  "${sargs[@]}" "${extra[@]}" </dev/null
rc=$?
set -e
# Copy the volume back through an empty folder: mcopy asks before it
# replaces a folder that exists (even with -o), and a prompt nobody sees hangs
# a terminal. Its own stderr stays visible.
if [ -z "$usb$tftp" ]; then
  back=$(mktemp -d "${TMPDIR:-/tmp}/pmh-back.XXXXXX")
  src=::/EFI; [ "$prepared" = 1 ] && src='::/*'
  if mcopy -s -i "$img" "$src" "$back"/ </dev/null; then
    cp -R "$back"/. "$esp"/
  else
    echo "qemu-boot.sh: copying the results back from the boot volume failed" >&2
    [ "$rc" -ne 0 ] || rc=1
  fi
  rm -rf "$back"
fi
exit $rc

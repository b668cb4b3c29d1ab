#!/usr/bin/env bash
# Boots the harness under QEMU's default firmware, SeaBIOS (legacy BIOS):
# the Multiboot kernel with QEMU's own loader (-kernel), or a disk image.
# Usage: bios-boot.sh KERNEL [--cpu MODEL] [--smp N] [--kvm] [--cfg TEXT]
#                           [--append WORDS] [--serial FILE|-] [--timeout S]
#                           [--usb IMG [--ehci]] [--ide IMG] [--pxe DIR] [--no-start-check]
#                           [-- extra qemu args]
#   --cfg TEXT   pmuharness.cfg lines, handed over as a Multiboot module
#                (-initrd; "none": no module); unused with a disk image
#   --append     words of the kernel's command line (options over the cfg)
#   --usb IMG    boot IMG as a USB stick (usb-storage on qemu-xhci, or on
#                usb-ehci with --ehci); --ide IMG boots it as an IDE disk;
#                KERNEL is then unused (the stick's syslinux loads its own)
#   --pxe DIR    network boot: the e1000's iPXE ROM (ipxe-qemu) runs
#                DIR/pmuharness.ipxe, served by QEMU's user-network TFTP
#                (make tftp); KERNEL and --cfg are unused
#   --no-start-check  skip the start-up check below (make bench times the boot
#                alone; a QEMU that fails to start then exits 1, as PASS does)
# Under TCG (no --kvm) the vCPUs run on host threads of their own
# (-accel tcg,thread=multi).
# QEMU is qemu-system-i386 (32-bit CPU models as they are, no long mode);
# QEMU=qemu-system-x86_64 for models only that one has.
# Exit status as qemu-boot.sh's: QEMU's ((debug-exit value << 1) | 1), 124 on
# timeout, 64 when KVM was asked for and /dev/kvm is missing, 66 when QEMU
# failed to start (its message on stderr).
set -euo pipefail
kernel=$1; shift
cpu=pentium3; smp=1; kvm=0; cfg="on_finish = qemu-exit"; append=""; serial=-; tmo=60
disk=(); extra=(); usb=""; ehci=0; check=1
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) cpu=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --kvm) kvm=1; shift ;;
    --cfg) cfg=$2; shift 2 ;;
    --append) append=$2; shift 2 ;;
    --serial) serial=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --usb) usb=$2; shift 2 ;;
    --ehci) ehci=1; shift ;;
    --ide) disk=(-drive format=raw,file="$2"); shift 2 ;;
    --pxe) disk=(-netdev user,id=n0,tftp="$2",bootfile=pmuharness.ipxe
                 -device e1000,netdev=n0 -boot n); shift 2 ;;
    --no-start-check) check=0; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "bios-boot.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
qemu=${QEMU:-qemu-system-i386}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-bios.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "$usb" ]; then
  hc=qemu-xhci; [ "$ehci" = 1 ] && hc=usb-ehci
  disk=(-device "$hc",id=hc -drive if=none,id=stick,format=raw,file="$usb"
        -device usb-storage,bus=hc.0,drive=stick,bootindex=0)
fi
if [ ${#disk[@]} -eq 0 ]; then
  # The kernel takes the first module whose name ends in pmuharness.cfg.
  disk=(-kernel "$kernel" -append "$append")
  if [ "$cfg" != none ]; then
    printf '%s\n' "$cfg" > "$tmp/pmuharness.cfg"
    disk+=(-initrd "$tmp/pmuharness.cfg")
  fi
fi
# Without KVM: multi-threaded TCG, one host thread per guest CPU, so that
# the CPUs of a parallel per-CPU run (cpus = all) do run at once.
cpuarg=(-cpu "$cpu" -accel tcg,thread=multi)
if [ "$kvm" = 1 ]; then
  [ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "error: KVM=1 but /dev/kvm is missing or not usable here" >&2; exit 64; }
  cpuarg=(-enable-kvm -cpu host)
fi
case $serial in
  -) sargs=(-serial stdio) ;;
  *) sargs=(-serial "file:$serial") ;;
esac
qargs=("${cpuarg[@]}" -smp "$smp" -m 256 -nodefaults -display none -no-reboot -net none
  "${disk[@]}" -device isa-debug-exit,iobase=0xf4,iosize=0x04)
# QEMU's own start-up failure exits 1, the PASS status: the machine is set up
# stopped (-S) and quit first, so that failure is told apart (66).
[ "$check" = 0 ] || perr=$(printf 'quit\n' | timeout -k 2 30 "$qemu" "${qargs[@]}" -S -monitor stdio \
  -serial null "${extra[@]}" 2>&1 >/dev/null) || {
  echo "bios-boot.sh: QEMU failed to start:" >&2
  printf '%s\n' "$perr" | head -5 >&2
  exit 66
}
set +e
timeout --foreground -k 5 "$tmo" "$qemu" "${qargs[@]}" "${sargs[@]}" "${extra[@]}" </dev/null
exit $?

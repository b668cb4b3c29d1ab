#!/usr/bin/env bash
# Builds one bootable USB-stick image, without root, that boots both ways:
# - UEFI: \EFI\BOOT\BOOTX64.EFI on the FAT32 partition (firmware mounts a FAT
#   partition of an MBR disk as it does an ESP);
# - legacy BIOS: syslinux's MBR code starts the active partition, syslinux
#   (mtools-based, no root) runs mboot.c32, which loads the
#   Multiboot kernel pmuharness-i686.elf with \EFI\BOOT\pmuharness.cfg as its
#   module, so both paths read the same config file.
# Layout: MBR + one active FAT32 (LBA) partition, type 0x0C, from 1 MiB. The
# FAT file system is made as a separate file, checked with fsck.fat -n and
# spliced in at that offset.
# BIOS results slots: PMHBIOS.LOG and PMHBIOS.JSN in the root, sized for
# --cpus N CPUs (below), copied first onto the new file system (so
# contiguous: checked below through the FAT), each a magic line (pc/fat.h
# SLOT_MAGIC) and spaces up to a final newline; the BIOS kernel overwrites
# them with INT 13h in place. A JSON that does not fit is refused, not cut,
# and a log that does not fit is cut (bios/results.c).
# Slot sizes, in KiB, for N CPUs (the numbers are pc/fat.h's SLOT_*_KIB,
# read from there: the kernel's "make usb USB_CPUS=N" advice uses them too):
#   PMHBIOS.JSN = 64 + 48 * N,  PMHBIOS.LOG = 64 + 32 * N,  each rounded up to 64 KiB
# Source figures (build/host/pmuharness-sim-fast, this tree, 2026-12): bytes a
# CPU adds to a cpus=all run, (size with all CPUs - size with CPU 0) / (CPUs - 1):
#   alderlake (4 CPUs):   JSON 16,792, log lines (stdout) 8,721
#   manycore (256 CPUs):  JSON 12,901, log lines          8,707
# and, since a CPU's share depends on its family and its findings, one CPU's
# whole run (fixed part included) on every model, healthy and under each of
# the 59 faults: at most JSON 45,630 (opteron, narrow-counter; healthy:
# opteron 42,524) and log 28,794 (pentium4, narrow-counter; healthy: 22,358);
# `output = lava` nearly doubles the log (38,534 on opteron). The BIOS kernel
# itself (host/qemu/test_bios_results.py: pentium3, TCG, -smp 64, every check):
# JSON 13,567 and log 9,859 a CPU.
# Allowance: JSON 48 KiB a CPU (the largest, 45,630 with its fixed part,
# + 8 %; the multi-CPU runs' 16,792 x 2.9), log 32 KiB (28,794 + 14 %: only
# LAVA output on the largest models may be cut); fixed part 64 KiB each (the run's own lines and
# objects, measured 1.6 KiB JSON and 0.7 KiB log, + the identification,
# warnings and findings a real machine adds).
# The image is 64 MiB, or where the slots need more, the slots + 32 MiB
# (the other files, about 2 MiB, and UEFI's numbered results files), rounded
# up to 16 MiB: 80 MiB at the default 512 CPUs (slots 24,640 + 16,448 KiB).
# Usage: usb-image.sh EFI OUT.img [--kernel ELF] [--cfg FILE] [--cpus N] [--size-mib N]
#   --kernel    the Multiboot kernel (default: pmuharness-i686.elf beside EFI)
#   --cpus N    size the BIOS results slots for N CPUs, 1-1024 (default 512;
#               `make usb USB_CPUS=N`)
#   --size-mib  the image's size (default: as above; at least what the slots need)
# Prints the partition offset in bytes (for mtools: mcopy -i OUT.img@@OFFSET).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
efi=$1; out=$2; shift 2
kernel=$(dirname "$efi")/pmuharness-i686.elf
cfg=$here/../boot/usb/pmuharness.cfg
readme=$here/../boot/usb/README.TXT
sylcfg=$here/../boot/usb/syslinux.cfg
size_mib=""
cpus=512
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) kernel=$2; shift 2 ;;
    --cfg) cfg=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --size-mib) size_mib=$2; shift 2 ;;
    *) echo "usb-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for t in mkfs.fat mcopy mmd syslinux; do
  command -v "$t" >/dev/null || { echo "usb-image.sh: $t not found (scripts/deps.sh lists the packages)" >&2; exit 1; }
done
# Debian's syslinux-common: the MBR boot code and the BIOS com32 modules.
sysl=${SYSLINUX_DIR:-/usr/lib/syslinux}
mbr=$sysl/mbr/mbr.bin
mods=$sysl/modules/bios
for f in "$kernel" "$mbr" "$mods/mboot.c32" "$mods/libcom32.c32"; do
  [ -f "$f" ] || { echo "usb-image.sh: $f not found (make i686; syslinux-common)" >&2; exit 1; }
done
[[ $cpus =~ ^[1-9][0-9]*$ ]] && [ "$cpus" -ge 1 ] && [ "$cpus" -le 1024 ] ||
  { echo "usb-image.sh: --cpus must be a number of CPUs from 1 to 1024, not '$cpus'" >&2; exit 2; }
fath=$here/../pc/fat.h
kib() { local v; v=$(sed -n "s/^#define $1[[:space:]]\{1,\}\([0-9]\{1,\}\)u\{0,1\}[[:space:]]*\$/\1/p" "$fath")
        [ -n "$v" ] || { echo "usb-image.sh: $1 not found in $fath" >&2; exit 1; }; echo "$v"; }
fixed_kib=$(kib SLOT_FIXED_KIB); round_kib=$(kib SLOT_ROUND_KIB)
json_kib=$(( (fixed_kib + cpus * $(kib SLOT_JSON_PER_CPU_KIB) + round_kib - 1) / round_kib * round_kib ))
log_kib=$(( (fixed_kib + cpus * $(kib SLOT_LOG_PER_CPU_KIB) + round_kib - 1) / round_kib * round_kib ))
# FAT32 needs at least 65525 clusters: with 512-byte clusters that is 32 MiB,
# so 64 MiB leaves room for the results of many runs; larger slots add to it.
slots_mib=$(( (json_kib + log_kib + 1023) / 1024 ))
if [ -z "$size_mib" ]; then
  size_mib=64
  [ $((slots_mib + 32)) -le 64 ] || size_mib=$(( (slots_mib + 32 + 15) / 16 * 16 ))
fi
[[ $size_mib =~ ^[1-9][0-9]*$ ]] && [ "$size_mib" -ge 40 ] || { echo "usb-image.sh: --size-mib must be at least 40 for FAT32" >&2; exit 2; }
# the slots, the 1 MiB before the partition, the FATs (1 %) and the files
[ "$size_mib" -ge $((slots_mib + 8)) ] ||
  { echo "usb-image.sh: --size-mib $size_mib is too small for the results slots of $cpus CPUs (at least $((slots_mib + 8)) MiB)" >&2; exit 2; }
start=2048                                 # 1 MiB alignment, sectors of 512 bytes
total=$((size_mib * 2048))
sectors=$((total - start))                 # the partition runs to the disk's end

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-usb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
disk=$tmp/disk.img; part=$tmp/part.img
export MTOOLS_SKIP_CHECK=1

le32() { local v=$1; printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $((v >> 8 & 255)))\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 24 & 255)))"; }
# CHS of an LBA in the usual 255-head, 63-sector translation (MBR entries
# carry both; BIOSes without EDD use CHS).
chs() { local c=$(($1 / (255 * 63))) h=$(($1 / 63 % 255)) s=$(($1 % 63 + 1))
        [ "$c" -gt 1023 ] && { c=1023; h=254; s=63; }
        printf "\\x$(printf %02x $h)\\x$(printf %02x $((s | (c >> 2 & 0xc0))))\\x$(printf %02x $((c & 255)))"; }

truncate -s $((total * 512)) "$disk"
{ # partition entry 1: active (0x80), type 0x0C = FAT32 with LBA
  printf '\x80'; chs "$start"; printf '\x0c'; chs $((total - 1)); le32 "$start"; le32 "$sectors"
} > "$tmp/entry"
dd if="$mbr" of="$disk" conv=notrunc status=none             # boot code, < 440 bytes
le32 0x504d4831 | dd of="$disk" bs=1 seek=440 conv=notrunc status=none  # disk signature
dd if="$tmp/entry" of="$disk" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$disk" bs=1 seek=510 conv=notrunc status=none
# -h: hidden sectors = the partition's first LBA; syslinux's boot sector and
# firmware use it to find the file system on the disk.
mkfs.fat -F 32 -s 1 -S 512 -h "$start" -n PMUHARNESS -C "$part" $((sectors / 2)) >/dev/null
cpuw="$cpus CPUs"; [ "$cpus" = 1 ] && cpuw="1 CPU"
for slot in LOG JSN; do
  slot_kib=$log_kib; [ "$slot" = JSN ] && slot_kib=$json_kib
  hdr="PMHBIOS-SLOT/1 pmuharness BIOS results slot ($slot), $slot_kib KiB for $cpuw: the BIOS kernel writes its results here"
  { printf '%s\n' "$hdr"; head -c $((slot_kib * 1024 - ${#hdr} - 2)) /dev/zero | tr '\0' ' '; printf '\n'; } > "$tmp/PMHBIOS.$slot"
  mcopy -i "$part" "$tmp/PMHBIOS.$slot" ::/PMHBIOS.$slot
done
mmd -i "$part" ::/EFI ::/EFI/BOOT ::/syslinux
mcopy -i "$part" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$part" "$cfg" ::/EFI/BOOT/pmuharness.cfg
mcopy -i "$part" "$readme" ::/README.TXT
mcopy -i "$part" "$kernel" ::/pmuharness-i686.elf
mcopy -i "$part" "$sylcfg" ::/syslinux/syslinux.cfg
mcopy -i "$part" "$mods/mboot.c32" "$mods/libcom32.c32" ::/syslinux/
# syslinux's boot sector finds ldlinux.sys through the hidden sectors, so it
# is installed on the file system before the splice (as --offset would).
syslinux --install --directory /syslinux "$part"
# Each slot must be one run of clusters (the BIOS kernel writes it by sector
# numbers): read its chain from the FAT; fail loudly on a fragmented one.
python3 - "$part" <<'PY' || { echo "usb-image.sh: a results slot is not contiguous" >&2; exit 1; }
import struct, sys
d = open(sys.argv[1], "rb").read()
bps, spc, rsvd, nfats = struct.unpack_from("<HBHB", d, 11)
fatsz, root = struct.unpack_from("<I", d, 36)[0], struct.unpack_from("<I", d, 44)[0]
fat, data = rsvd * bps, (rsvd + nfats * fatsz) * bps
ent = lambda c: struct.unpack_from("<I", d, fat + 4 * c)[0] & 0x0FFFFFFF
rootdir = d[data + (root - 2) * spc * bps:data + (root - 1) * spc * bps]
for name in (b"PMHBIOS LOG", b"PMHBIOS JSN"):
    e = [rootdir[i:i + 32] for i in range(0, len(rootdir), 32) if rootdir[i:i + 11] == name]
    assert e, name
    c = struct.unpack_from("<H", e[0], 20)[0] << 16 | struct.unpack_from("<H", e[0], 26)[0]
    n = -(-struct.unpack_from("<I", e[0], 28)[0] // (spc * bps))
    for i in range(n - 1):
        assert ent(c + i) == c + i + 1, (name, c + i)
    assert ent(c + n - 1) >= 0x0FFFFFF8, name
PY
fsck.fat -n "$part" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck" >&2; echo "usb-image.sh: fsck.fat -n reports errors" >&2; exit 1; }
dd if="$part" of="$disk" bs=512 seek="$start" conv=notrunc,sparse status=none
mkdir -p "$(dirname "$out")"
mv "$disk" "$out"
echo "$out: $size_mib MiB MBR disk, FAT32 at byte offset $((start * 512)) (mcopy -i $out@@$((start * 512))); BIOS results slots for $cpuw: PMHBIOS.JSN $json_kib KiB, PMHBIOS.LOG $log_kib KiB"

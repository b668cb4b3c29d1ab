#!/usr/bin/env bash
# Builds a bootable USB-stick image without root: a GPT disk with one EFI
# System Partition (FAT32, type EF00) holding \EFI\BOOT\BOOTX64.EFI, a
# commented pmuharness.cfg and README.TXT. The FAT file system is made as a
# separate file and spliced into the disk at the partition offset.
# Usage: usb-image.sh EFI OUT.img [--cfg FILE] [--size-mib N]
# Prints the partition offset in bytes (for mtools: mcopy -i OUT.img@@OFFSET).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
efi=$1; out=$2; shift 2
cfg=$here/../boot/usb/pmuharness.cfg
readme=$here/../boot/usb/README.TXT
size_mib=64
while [ $# -gt 0 ]; do
  case $1 in
    --cfg) cfg=$2; shift 2 ;;
    --size-mib) size_mib=$2; shift 2 ;;
    *) echo "usb-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for t in sgdisk mkfs.fat mcopy mmd; do
  command -v "$t" >/dev/null || { echo "usb-image.sh: $t not found (scripts/deps.sh lists the packages)" >&2; exit 1; }
done
# FAT32 needs at least 65525 clusters: with 512-byte clusters that is 32 MiB,
# so 64 MiB leaves room for the results of many runs.
[ "$size_mib" -ge 40 ] || { echo "usb-image.sh: --size-mib must be at least 40 for FAT32" >&2; exit 2; }
start=2048                                 # 1 MiB alignment, sectors of 512 bytes
total=$((size_mib * 2048))
last=$((total - 34))                       # the backup GPT takes the last 33 sectors
end=$(( (last + 1) / 2048 * 2048 - 1 ))    # partition ends on a MiB boundary
sectors=$((end - start + 1))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-usb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
disk=$tmp/disk.img; part=$tmp/esp.img
export MTOOLS_SKIP_CHECK=1

truncate -s $((total * 512)) "$disk"
sgdisk -o -n "1:$start:$end" -t 1:EF00 -c "1:EFI System Partition" "$disk" >/dev/null
# -h: hidden sectors = the partition's first LBA, as firmware and OSes expect.
mkfs.fat -F 32 -s 1 -S 512 -h "$start" -n PMUHARNESS -C "$part" $((sectors / 2)) >/dev/null
mmd -i "$part" ::/EFI ::/EFI/BOOT
mcopy -i "$part" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$part" "$cfg" ::/EFI/BOOT/pmuharness.cfg
mcopy -i "$part" "$readme" ::/README.TXT
dd if="$part" of="$disk" bs=512 seek="$start" conv=notrunc,sparse status=none
sgdisk -v "$disk" >/dev/null || { echo "usb-image.sh: sgdisk -v reports a bad partition table" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
mv "$disk" "$out"
echo "$out: $((total / 2048)) MiB GPT disk, ESP at byte offset $((start * 512)) (mcopy -i $out@@$((start * 512)))"

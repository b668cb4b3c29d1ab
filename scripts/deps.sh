#!/usr/bin/env bash
# Checks the Debian packages the build and tests need; installs missing ones
# when running as root, otherwise prints the exact apt-get line and stops.
set -euo pipefail
pkgs=(gcc make binutils gnu-efi qemu-system-x86 ovmf libcmocka-dev mtools dosfstools
      sbsigntool python3 gdisk openssl clang libclang-rt-14-dev gcc-multilib
      syslinux syslinux-common lava-common)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "deps: missing packages: ${missing[*]}" >&2
  echo "deps: run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

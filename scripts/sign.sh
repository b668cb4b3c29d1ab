#!/usr/bin/env bash
# `make sign KEY=db.key CERT=db.crt [KEYPASS=...]`: signs the harness for
# Secure Boot with sbsign, writes build/pmuharness.signed.efi and replaces the
# USB image's \EFI\BOOT\BOOTX64.EFI with the signed copy.
# Usage: sign.sh EFI SIGNED_OUT [USB_IMG]; KEY, CERT, KEYPASS from the environment.
# An encrypted key is decrypted with KEYPASS into a private temporary file;
# without KEYPASS sbsign asks for the passphrase itself.
set -euo pipefail
efi=$1; out=$2; img=${3:-}
key=${KEY:-}; cert=${CERT:-}
if [ -z "$key" ] || [ -z "$cert" ]; then
  echo "sign: usage: make sign KEY=<private key, PEM> CERT=<certificate, PEM> [KEYPASS=<passphrase>]" >&2
  exit 2
fi
for f in "$key" "$cert" "$efi"; do [ -r "$f" ] || { echo "sign: cannot read $f" >&2; exit 2; }; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmh-sign.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${KEYPASS:-}" ] && grep -q "ENCRYPTED" "$key"; then
  command -v openssl >/dev/null || { echo "sign: openssl is needed to decrypt $key" >&2; exit 1; }
  (umask 077; PMH_KEYPASS=$KEYPASS openssl pkey -in "$key" -passin env:PMH_KEYPASS -out "$tmp/key.pem")
  key=$tmp/key.pem
fi
sbsign --key "$key" --cert "$cert" --output "$tmp/signed.efi" "$efi" 2>&1 | grep -v '^Signing Unsigned' || true
[ -s "$tmp/signed.efi" ] || { echo "sign: sbsign failed" >&2; exit 1; }
sbverify --cert "$cert" "$tmp/signed.efi" >/dev/null || { echo "sign: the signature does not verify against $cert" >&2; exit 1; }
mv "$tmp/signed.efi" "$out"
echo "sign: $out (signed by $(openssl x509 -in "$cert" -noout -subject 2>/dev/null | sed 's/^subject=//'))"
if [ -n "$img" ]; then
  first=$(sgdisk -i 1 "$img" | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
  [ -n "$first" ] || { echo "sign: $img has no partition 1" >&2; exit 1; }
  MTOOLS_SKIP_CHECK=1 mcopy -o -i "$img@@$((first * 512))" "$out" ::/EFI/BOOT/BOOTX64.EFI
  echo "sign: $img: \\EFI\\BOOT\\BOOTX64.EFI is the signed copy"
fi

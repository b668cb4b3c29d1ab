#!/usr/bin/env python3
"""Secure Boot: OVMF's Secure Boot build with Debian's snakeoil key enrolled in
PK, KEK and db. The harness signed with that key (by scripts/sign.sh, as
`make sign` does) boots and runs, from a folder and from the USB image; the
unsigned binary and one signed with a key the firmware does not know are
refused.
Usage: test_secureboot.py build/pmuharness.efi"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemulib as q  # noqa: E402

OVMF = "/usr/share/OVMF"
SNAKEOIL_KEY = "/usr/share/ovmf/PkKek-1-snakeoil.key"
SNAKEOIL_CERT = "/usr/share/ovmf/PkKek-1-snakeoil.pem"
# The key is encrypted; its passphrase is given in /usr/share/doc/ovmf/README.Debian.
SNAKEOIL_PASS = "snakeoil"
REFUSED = re.compile(r"^BdsDxe: failed to load Boot\d+ .*: (Access Denied|Security Violation)$")
HARNESS = re.compile(r"^(pmuharness: |cpu\.vendor: |\d+ passed, )")


def sign(efi, out, key, cert, keypass="", img=None):
    env = dict(q.ENV, KEY=key, CERT=cert, KEYPASS=keypass)
    p = subprocess.run([q.SIGN, efi, out] + ([img] if img else []), env=env,
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def sbverify(path, cert):
    return subprocess.run(["sbverify", "--cert", cert, path], capture_output=True).returncode == 0


class Work:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pmh-sb-")

    def path(self, name):
        return os.path.join(self.dir, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


def firmware_present():
    need = [os.path.join(OVMF, "OVMF_CODE_4M.secboot.fd"),
            os.path.join(OVMF, "OVMF_VARS_4M.snakeoil.fd"), SNAKEOIL_KEY, SNAKEOIL_CERT]
    return [f"missing {f} (Debian package ovmf)" for f in need if not os.path.exists(f)]


def check_run(rc, lines):
    errs = []
    if rc != q.NO_PMU_EXIT:
        errs.append(f"QEMU exit status {rc}, expected {q.NO_PMU_EXIT} (verdict NO PMU under TCG)")
    close = q.closing(lines)
    if close is None:
        errs.append("no single closing line")
    elif close != q.counted(lines) or sum(close) == 0:
        errs.append(f"closing line {close}, check lines {q.counted(lines)}")
    if errs:
        errs += ["    | " + l for l in lines[-12:]]
    return errs


def signed_boots(efi):
    errs = firmware_present()
    if errs:
        return errs
    with Work() as w:
        rc, out = sign(efi, w.path("signed.efi"), SNAKEOIL_KEY, SNAKEOIL_CERT, SNAKEOIL_PASS)
        if rc or not sbverify(w.path("signed.efi"), SNAKEOIL_CERT):
            return [f"sign.sh failed ({rc}): {out.strip()}"]
        if sbverify(efi, SNAKEOIL_CERT):
            errs.append("the unsigned binary verifies: the signature check proves nothing")
        rc, secs, lines, _ = q.boot([w.path("signed.efi"), "--secboot"])
        errs += check_run(rc, lines)
        print(f"  signed boot under Secure Boot: {secs:.1f} s", flush=True)
    return errs


def signed_usb_image_boots(efi):
    """`make sign` also signs the image's copy; that stick boots under Secure Boot."""
    errs = firmware_present()
    if errs:
        return errs
    with Work() as w:
        img = w.path("stick.img")
        off = q.build_image(efi, img)
        rc, out = sign(efi, w.path("signed.efi"), SNAKEOIL_KEY, SNAKEOIL_CERT, SNAKEOIL_PASS, img)
        if rc:
            return [f"sign.sh failed ({rc}): {out.strip()}"]
        copy = q.get(img, off, "/EFI/BOOT/BOOTX64.EFI")
        if copy != open(w.path("signed.efi"), "rb").read():
            errs.append("the image's BOOTX64.EFI is not the signed binary")
        q.put(img, off, b"on_finish = qemu-exit\n", "/EFI/BOOT/pmuharness.cfg")
        rc, secs, lines, _ = q.boot(["-", "--usb", img, "--secboot"])
        errs += check_run(rc, lines)
        if q.get(img, off, "/EFI/BOOT/pmuharness-001.json") is None:
            errs.append("no results JSON on the stick")
    return errs


def refused(efi_to_boot):
    """Boots under Secure Boot and waits for the firmware's refusal (bounded)."""
    errs = []
    con = q.Console([efi_to_boot, "--secboot"], timeout=40)
    try:
        m = con.expect(REFUSED.pattern, 30)
        if not m:
            errs.append("no refusal from the firmware within 30 s")
        # The boot falls through to the next option (the internal shell, also
        # refused) and ends in the boot manager: our binary never ran.
        con.expect(r"^BdsDxe: No bootable option", 10)
        ours = [l for l in con.lines() if HARNESS.match(l)]
        if ours:
            errs.append(f"the harness ran: {ours[:3]}")
        if errs:
            errs += ["    | " + l for l in con.lines()[-8:]]
    finally:
        con.close()
    return errs


def unsigned_refused(efi):
    errs = firmware_present()
    return errs or refused(efi)


def foreign_key_refused(efi):
    """Signed, but with a key that is not in db: refused just the same."""
    errs = firmware_present()
    if errs:
        return errs
    with Work() as w:
        key, cert = w.path("other.key"), w.path("other.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=pmuharness test key not in db", "-keyout", key,
                        "-out", cert], check=True, capture_output=True)
        rc, out = sign(efi, w.path("other.efi"), key, cert)
        if rc or not sbverify(w.path("other.efi"), cert):
            return [f"sign.sh failed ({rc}): {out.strip()}"]
        return refused(w.path("other.efi"))


def main():
    efi = sys.argv[1]
    t = q.Tally("secureboot")
    for case in (signed_boots, signed_usb_image_boots, unsigned_refused, foreign_key_refused):
        t.case(case, efi)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

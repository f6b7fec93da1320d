"""Tamper with a certified bytecode program (symshape run -b bytecode --certify), for
tests/cli/verify.sh: each mode is one kind of change `symshape verify --artifact` must refuse.
usage: tamper_sybc.py MODE IN OUT
Modes: flip-nocrc (a byte of the program, CRC left stale), flip (a byte of the program, CRC
fixed), drop-check (a CHECK replaced by a jump to the next instruction, CRC fixed), and the
forger's versions that also recompute both SHA-256s: drop-check-rehash, claim-rehash (the claim
made trivially unsat), weaken-rehash (the recorded side made false); edit-obligation (the claim
changed, CRC fixed, hashes stale)."""
import hashlib
import struct
import sys
import zlib

MARK = b"; symshape certificate obligation"
OP_JMPZ, OP_CHECK = 18, 20


def leb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def fix_crc(d):
    d = bytearray(d)
    d[36:40] = struct.pack("<I", zlib.crc32(bytes(d[:36]) + bytes(d[40:])) & 0xFFFFFFFF)
    return bytes(d)


def split(data):
    at = data.find(MARK)
    ob = data[at:]
    start = at - len(leb(len(ob))) - 65
    base = bytearray(data[:start])
    base[10:12] = struct.pack("<H", data[start])  # the program's own minor
    base[12:16] = struct.pack("<I", struct.unpack("<I", data[12:16])[0] & ~0x8)
    return fix_crc(base), ob


def join(base, ob):
    d = bytearray(base)
    minor = base[10]
    d[10:12] = struct.pack("<H", 2)
    d[12:16] = struct.pack("<I", struct.unpack("<I", base[12:16])[0] | 0x8)
    d += bytes([minor]) + hashlib.sha256(base).digest() + hashlib.sha256(base + ob).digest() + leb(len(ob)) + ob
    return fix_crc(d)


def drop_check(base):
    base = bytearray(base)
    n = struct.unpack("<I", base[32:36])[0]
    code = len(base) - 4 * n  # no run-time section in the models used
    for pc in range(n):
        w = struct.unpack("<I", base[code + 4 * pc : code + 4 * pc + 4])[0]
        if w & 0x7F == OP_CHECK:
            base[code + 4 * pc : code + 4 * pc + 4] = struct.pack("<I", OP_JMPZ | (w & 0xFF00))
            return fix_crc(base)
    raise SystemExit("no CHECK")


def main():
    mode, src, dst = sys.argv[1:4]
    data = open(src, "rb").read()
    base, ob = split(data)
    assert join(base, ob) == data, "split/join does not reproduce the file"
    if mode in ("flip-nocrc", "flip"):
        d = bytearray(data)
        d[41] ^= 0x01  # the first byte of slot 0's name
        out = bytes(d) if mode == "flip-nocrc" else fix_crc(d)
    elif mode == "drop-check":
        out = fix_crc(drop_check(base) + data[len(base) :])
        out = bytearray(out)
        out[10:16] = data[10:16]
        out = fix_crc(out)
    elif mode == "drop-check-rehash":
        out = join(drop_check(base), ob)
    elif mode in ("claim-rehash", "edit-obligation"):
        ob2 = ob.replace(b"(assert (not (= |min_all| |rec_all|)))", b"(assert (not (= |min_all| |min_all|)))")
        out = join(base, ob2) if mode == "claim-rehash" else fix_crc(data[: len(data) - len(ob)] + ob2)
    elif mode == "weaken-rehash":
        out = join(base, ob.replace(b"(define-fun |rec_all| () Bool (and true", b"(define-fun |rec_all| () Bool (and false"))
    else:
        raise SystemExit("unknown mode " + mode)
    open(dst, "wb").write(out)


main()

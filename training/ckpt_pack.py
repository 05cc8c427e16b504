"""Lossless packing of a bf16 safetensors checkpoint for the trip back from the GPU machine (a call brings back at most
64 MiB): the high byte of every bf16 value (sign and exponent) compresses to ~37 %, the low byte (mantissa) not at
all, so storing the two byte planes apart, the high one deflated, makes the d640-l6 checkpoint (70 MB) ~48 MB: one
call instead of two.

  python training/ckpt_pack.py pack CKPT.safetensors OUT.lsz
  python training/ckpt_pack.py unpack OUT.lsz CKPT.safetensors     # byte-identical; prints its sha256
"""
from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import zlib
from pathlib import Path

MAGIC = b"LAYA-LSZ1"


def pack(src: Path, dst: Path) -> None:
    raw = src.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header, body = raw[:8 + n], raw[8 + n:]
    dtypes = {v["dtype"] for k, v in json.loads(header[8:]).items() if k != "__metadata__"}
    planes = dtypes == {"BF16"} and len(body) % 2 == 0
    hi = zlib.compress(body[1::2], 6) if planes else zlib.compress(body, 6)
    lo = body[0::2] if planes else b""
    with open(dst, "wb") as f:
        f.write(MAGIC + struct.pack("<QQQB", len(header), len(hi), len(lo), planes) + header + hi + lo)
    print(json.dumps({"packed": str(dst), "bytes": dst.stat().st_size, "of": len(raw),
                      "sha256": hashlib.sha256(raw).hexdigest()}))


def unpack(src: Path, dst: Path) -> str:
    data = src.read_bytes()
    assert data.startswith(MAGIC), f"{src}: not a packed checkpoint"
    o = len(MAGIC)
    nh, nhi, nlo, planes = struct.unpack("<QQQB", data[o:o + 25])
    o += 25
    header, hi, lo = data[o:o + nh], zlib.decompress(data[o + nh:o + nh + nhi]), data[o + nh + nhi:o + nh + nhi + nlo]
    if planes:
        body = bytearray(2 * len(lo))
        body[0::2], body[1::2] = lo, hi
    else:
        body = bytearray(hi)
    raw = header + bytes(body)
    dst.write_bytes(raw)
    digest = hashlib.sha256(raw).hexdigest()
    print(json.dumps({"unpacked": str(dst), "bytes": len(raw), "sha256": digest}))
    return digest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["pack", "unpack"])
    ap.add_argument("src")
    ap.add_argument("dst")
    a = ap.parse_args()
    (pack if a.cmd == "pack" else unpack)(Path(a.src), Path(a.dst))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

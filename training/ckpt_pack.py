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


def dequantized(tensors: dict, bits: int, group: int) -> dict:
    """An mlx-lm quantized checkpoint (`mlx_lm convert -q`: uint32 `weight` words holding 32/bits values each, low
    bits first, with per-group `scales` and `biases`) as float32 weights under the same names, in numpy: what a
    training run continues from when the shipped model is quantized (train.py --init)."""
    import numpy as np
    out = {}
    per = 32 // bits
    for k, v in tensors.items():
        if k.endswith((".scales", ".biases")):
            continue
        stem = k[:-len(".weight")] if k.endswith(".weight") else None
        if stem is not None and f"{stem}.scales" in tensors:
            words = np.asarray(v, dtype=np.uint32)
            shifts = (np.arange(per, dtype=np.uint32) * bits)
            q = ((words[..., None] >> shifts) & ((1 << bits) - 1)).reshape(words.shape[0], -1).astype(np.float32)
            scales = np.asarray(tensors[f"{stem}.scales"], dtype=np.float32)
            biases = np.asarray(tensors[f"{stem}.biases"], dtype=np.float32)
            g = q.reshape(q.shape[0], -1, group)
            out[k] = (g * scales[..., None] + biases[..., None]).reshape(q.shape)
        else:
            out[k] = np.asarray(v, dtype=np.float32)
    return out


def read_float32(path: Path) -> dict:
    """A safetensors checkpoint (BF16, F16, F32 and, quantized, U32) as numpy arrays, float32 where it holds
    floats; no torch or MLX needed. A quantized one (config.json beside it names `quantization`) is dequantized."""
    import numpy as np
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    body = memoryview(raw)[8 + n:]
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        buf = body[a:b]
        if v["dtype"] == "BF16":
            arr = (np.frombuffer(buf, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(buf, dtype={"F16": np.float16, "F32": np.float32, "U32": np.uint32}[v["dtype"]])
            arr = arr if v["dtype"] == "U32" else arr.astype(np.float32)
        out[k] = arr.reshape(v["shape"])
    config = path.parent / "config.json"
    quant = json.loads(config.read_text()).get("quantization") if config.exists() else None
    if quant or any(k.endswith(".scales") for k in out):
        assert quant, f"{path}: quantized weights without a config.json naming their quantization"
        out = dequantized(out, quant["bits"], quant["group_size"])
    return out


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

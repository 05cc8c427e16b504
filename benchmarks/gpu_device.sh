#!/usr/bin/env bash
# The GPU section on a lent machine that has CUDA and Python 3.12 but no network (this workplace's H200):
# the wheels laya needs travel with the checkout in three transfers of <= 64 MiB each (the checkout itself is
# ~32 MB of them), because MLX's CUDA wheel alone (mlx-cuda-13, 90 MB; 75 MB as xz) is larger than one.
#
#   bash benchmarks/gpu_device.sh prepare          # here, with network: .whl/gpu/{deps/*.whl, mlxcuda.part0-2}
#   device call 1:  carry [".whl/gpu/mlxcuda.part0", ".whl/gpu/deps"] bash benchmarks/gpu_device.sh stage
#   device call 2 (within the ~30 s the machine stays warm):
#                   carry [".whl/gpu/mlxcuda.part1"]                  bash benchmarks/gpu_device.sh stage
#   device call 3:  carry [".whl/gpu/mlxcuda.part2"]                  bash benchmarks/gpu_device.sh run
# `run` stages what came with it, installs into /tmp/site (once per machine), then runs
# `python -m benchmarks.gpu --out $OUT/gpu $GPU_ARGS` and packs the results; a later `run` on the same machine
# reuses the installation (GPU_ARGS="--parts decode,torch", say).
# On a machine with network none of this is needed: pip install 'laya-lsp[cuda]' and python -m benchmarks.gpu.
set -euo pipefail
cd "$(dirname "$0")/.."
MLX_VERSION=0.32.4
STAGE=/tmp/laya-stage
SITE=/tmp/site
W=.whl/gpu

case "${1:-}" in
prepare)
  mkdir -p "$W/deps" /tmp/laya-mlxcuda
  plat=(--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_35_x86_64
        --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64)
  # What the image lacks of laya's dependencies (it has numpy, tokenizers, transformers, attrs, psutil, ...).
  python3 -m pip download -q --no-deps "${plat[@]}" -d "$W/deps" "mlx==$MLX_VERSION" mlx-lm pygls lsprotocol \
    cattrs tree-sitter tree-sitter-python tree-sitter-javascript tree-sitter-typescript tree-sitter-go \
    tree-sitter-rust tree-sitter-c tree-sitter-cpp tree-sitter-java llguidance jsonschema \
    jsonschema-specifications referencing rpds-py
  python3 -m pip download -q --no-deps "${plat[@]}" -d /tmp/laya-mlxcuda "mlx-cuda-13==$MLX_VERSION"
  rm -rf /tmp/laya-mlxcuda/x && mkdir /tmp/laya-mlxcuda/x
  (cd /tmp/laya-mlxcuda/x && unzip -q ../mlx_cuda_13-*.whl && tar cf - . | xz -9e -T2 > ../mlxcuda.tar.xz)
  # Uneven parts: the first travels with the other wheels, the last with the run (each call <= 64 MiB with the
  # ~32 MB checkout: 25 + 7 MB of other wheels, 31, 19).
  # Cut with dd (whole MB blocks), not `tail | head`: under pipefail head's early exit kills tail with SIGPIPE
  # (exit 141) and the script stops before the last part.
  rm -f "$W"/mlxcuda.part*
  xz=/tmp/laya-mlxcuda/mlxcuda.tar.xz
  dd if="$xz" of="$W/mlxcuda.part0" bs=1000000 count=25 status=none
  dd if="$xz" of="$W/mlxcuda.part1" bs=1000000 skip=25 count=31 status=none
  dd if="$xz" of="$W/mlxcuda.part2" bs=1000000 skip=56 status=none
  [ "$(cat "$W"/mlxcuda.part* | cmp - "$xz" && echo same)" = same ]  # the parts are the archive, whole
  ls -la "$W" "$W/deps"
  ;;
stage)
  mkdir -p "$STAGE" && for f in "$W"/mlxcuda.part* "$W"/deps; do [ -e "$f" ] && cp -r "$f" "$STAGE"/; done
  ls -la "$STAGE"
  ;;
run)
  bash "$PWD/benchmarks/gpu_device.sh" stage
  if [ ! -e "$SITE/.installed" ]; then
    rm -rf "$SITE" && mkdir -p "$SITE"
    for whl in "$STAGE"/deps/*.whl; do python3 -m zipfile -e "$whl" "$SITE"; done
    cat "$STAGE"/mlxcuda.part0 "$STAGE"/mlxcuda.part1 "$STAGE"/mlxcuda.part2 | python3 -c \
      "import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.stdin.buffer), mode='r|').extractall('$SITE')"
    touch "$SITE/.installed"
  fi
  export PYTHONPATH="$SITE:$PWD"
  # MLX's CUDA library finds cuBLAS, cuDNN, NVRTC ... in the nvidia-* wheels the machine's PyTorch brought.
  nv=$(python3 -c "import glob, os, nvidia; print(':'.join(sorted({os.path.dirname(p) for d in nvidia.__path__
                   for p in glob.glob(d + '/**/lib*.so*', recursive=True)})))")
  export LD_LIBRARY_PATH="$nv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || true
  python3 -c "import mlx.core as mx; print('mlx', mx.__version__, mx.default_device(), mx.cuda.is_available())"
  # Results are written outside $OUT and come back as one archive (a device call returns at most 8 files).
  out="${OUT:-/tmp/laya-gpu-out}" res=/tmp/laya-gpu-results
  mkdir -p "$res/gpu" "$out"
  # shellcheck disable=SC2086  # GPU_ARGS: more arguments, split as words
  python3 -m benchmarks.gpu --out "$res/gpu" ${GPU_ARGS:-} || echo "benchmarks.gpu exited $?"
  tar czf "$out/gpu-results.tar.gz" -C "$res" gpu && cp "$res/gpu/summary.json" "$out/" 2>/dev/null || true
  ls -la "$out"
  ;;
*)
  echo "usage: $0 prepare|stage|run" >&2
  exit 2
  ;;
esac

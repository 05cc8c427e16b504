#!/usr/bin/env bash
# First device call: start the trainings detached on the one GPU, watch them, and bring back the latest
# checkpoints before this call's 10-minute limit (in case the machine is lost before the second call).
# Usage: bash training/gpu_launch.sh <time_budget_s> <watch_s> ["<shape> <lr>" ...]
set -u
BUDGET=${1:-1080}; WATCH=${2:-560}; shift 2 || true
[ $# -gt 0 ] || set -- "d384-l3 2e-3" "d512-l2 1.5e-3"
WORKERS=$(( $(nproc) / $# - 1 ))   # data workers per run: the sample maker is Python, keep the GPU fed
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
python3 -c 'import torch, transformers, tokenizers; print(torch.__version__, transformers.__version__, tokenizers.__version__)'
mkdir -p training/out/logs
for spec in "$@"; do
  set -- $spec
  PYTHONUNBUFFERED=1 setsid nohup python3 training/train.py --shape $1 --lr $2 --batch 128 --seq 1024 \
    --time-budget $BUDGET --workers $WORKERS --compile --ckpt-every 90 --out training/out/$1 \
    > training/out/logs/$1.log 2>&1 < /dev/null &
done
T0=$(date +%s)
while [ $(( $(date +%s) - T0 )) -lt $WATCH ]; do
  sleep 60
  for f in training/out/logs/*.log; do echo "== $f"; grep -E '"(val|decay|compile_failed)"' $f | tail -2; tail -1 $f; done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
done
bash training/gpu_collect.sh latest

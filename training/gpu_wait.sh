#!/usr/bin/env bash
# Second device call: wait until every training run has written its final checkpoint, then collect.
set -u
LIMIT=${1:-560}; T0=$(date +%s)
# A fresh machine (the first one was given back) has no runs: say so at once instead of waiting.
ls training/out/logs/*.log >/dev/null 2>&1 || { echo 'no training runs on this machine'; exit 3; }
runs=$(ls training/out/logs/*.log | wc -l)
while [ $(( $(date +%s) - T0 )) -lt $LIMIT ]; do
  n=$(ls training/out/d*/final.safetensors 2>/dev/null | wc -l)
  [ "$n" -ge "$runs" ] && break
  sleep 10
done
for f in training/out/logs/*.log; do echo "== $f"; grep -E '"(decay|val|done)"' $f | tail -4; tail -2 $f; done
bash training/gpu_collect.sh final

#!/usr/bin/env bash
# Copy checkpoints (<tag>.safetensors, else latest.safetensors; split into <=15 MiB parts) and logs into $OUT.
set -u
TAG=${1:-final}
tar czf $OUT/logs.tgz training/out/logs training/out/*/log.jsonl training/out/*/config.json 2>/dev/null
for d in training/out/d*; do
  n=$(basename $d)
  if [ -f $d/$TAG.safetensors ]; then split -b 15M -d $d/$TAG.safetensors $OUT/$n.$TAG.part
  elif [ -f $d/latest.safetensors ]; then split -b 15M -d $d/latest.safetensors $OUT/$n.latest.part; fi
done
ls -la $OUT

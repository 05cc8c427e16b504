#!/usr/bin/env bash
# Device-call steps of a training sweep whose corpus reaches the GPU machine one text shard per call (each call's
# transfer is limited to 64 MiB). Run from the folder the call carries (see training/README.md): code/ (the
# training scripts), tokenizer/, shard-NN.jsonl.bz2. Runs, token files and logs live in $WORK outside the checkout:
# each call lays the checkout anew and removes what it does not carry (that killed the first runs of this recipe).
#   bash code/gpu.sh start BUDGET_S WATCH_S "SHAPE LR WORKERS [INIT]" ...  # encode shards, start the runs detached
#        INIT: a checkpoint of the same shape, relative to the checkout (e.g. the shipped model) to continue from
#   bash code/gpu.sh feed WATCH_S [TAG SHAPE...]    # encode newly arrived shards, watch; bring back TAG checkpoints
#   bash code/gpu.sh collect WAIT_S SHAPE...        # wait for the runs' final checkpoints, bring them back
# Checkpoints come back under $OUT split into <=15 MiB parts: cat SHAPE.TAG.part* > TAG.safetensors
set -u
CMD=$1; shift
WORK=${WORK:-/tmp/laya-train}
mkdir -p $WORK/tokens $WORK/logs

encode_new() {  # text shards without token files yet -> $WORK/tokens (tokenizers uses every core)
  for s in shard-*.jsonl.bz2; do
    [ -f "$s" ] || continue
    [ -f "$WORK/tokens/${s%%.*}.meta.json" ] && continue
    python3 code/tokenizer.py encode --out tokenizer --shard "$s" --tokens $WORK/tokens || exit 1
  done
}

report() {  # the last validation and progress lines of each run
  for f in $WORK/logs/*.log; do
    echo "== $f"; grep -E '"(val|decay|compile_failed|done)"' "$f" | tail -2; grep '"train"' "$f" | tail -1
    grep -E 'Error|error' "$f" | grep -v '"event"' | tail -2
  done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
}

watch_for() {
  local t0; t0=$(date +%s)
  while [ $(( $(date +%s) - t0 )) -lt "$1" ]; do sleep 30; report; done
}

bring_back() {  # bring_back TAG SHAPE...: checkpoints (TAG, else latest) as parts, plus all logs
  local tag=$1; shift
  tar czf "$OUT/logs.tgz" -C $WORK logs $(cd $WORK && ls runs/*/log.jsonl runs/*/config.json) 2>/dev/null
  for n in "$@"; do
    local t=$tag
    [ -f "$WORK/runs/$n/$t.safetensors" ] || t=latest
    [ -f "$WORK/runs/$n/$t.safetensors" ] && split -b 15M -d "$WORK/runs/$n/$t.safetensors" "$OUT/$n.$t.part"
  done
  ls -la "$OUT"
}

case "$CMD" in
  start)
    BUDGET=$1; WATCH=$2; shift 2
    nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
    python3 -c 'import torch, transformers, tokenizers; print(torch.__version__, transformers.__version__, tokenizers.__version__)'
    cp -r code tokenizer $WORK/
    encode_new
    for spec in "$@"; do
      set -- $spec
      init=${4:+--init $(pwd)/../$4 --warmup 50}
      PYTHONUNBUFFERED=1 setsid nohup python3 $WORK/code/train.py --shape "$1" --lr "$2" --workers "$3" $init \
        --batch 128 --seq 1024 --time-budget "$BUDGET" --decay-frac 0.3 --compile --ckpt-every 120 \
        --data $WORK/tokens --tokenizer $WORK/tokenizer --out "$WORK/runs/$1" > "$WORK/logs/$1.log" 2>&1 < /dev/null &
    done
    watch_for "$WATCH" ;;
  feed)
    WATCH=$1; shift
    encode_new
    watch_for "$WATCH"
    [ $# -gt 0 ] && bring_back "$@" ;;
  collect)
    WAIT=$1; shift; t0=$(date +%s)
    while [ $(( $(date +%s) - t0 )) -lt "$WAIT" ]; do
      done_runs=0
      for n in "$@"; do [ -f "$WORK/runs/$n/final.safetensors" ] && done_runs=$((done_runs + 1)); done
      [ "$done_runs" -eq $# ] && break
      sleep 10
    done
    report
    bring_back final "$@" ;;
esac

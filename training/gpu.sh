#!/usr/bin/env bash
# Device-call steps of a training sweep whose corpus reaches the GPU machine one text shard per call (each call's
# transfer is limited to 64 MiB). Run from the folder the call carries (see training/README.md): code/ (the
# training scripts), tokenizer/, shard-NN.jsonl.bz2. Runs, token files and logs live in $WORK outside the checkout:
# each call lays the checkout anew and removes what it does not carry (that killed the first runs of this recipe).
#   bash code/gpu.sh start BUDGET_S WATCH_S "SHAPE LR WORKERS [INIT]" ...  # encode shards, start the runs detached
#        with eval-pack.npz in the carried folder (corpus.py --write-eval-pack) it also builds shard-10 from the
#        machine's own installed Python distributions (corpus.py --installed), detached; the runs take it when ready
#        INIT: a checkpoint of the same shape, relative to the checkout (e.g. the shipped model) to continue from
#   bash code/gpu.sh feed WATCH_S [TAG SHAPE...]    # encode newly arrived shards, watch; bring back TAG checkpoints
#        (no TAG: the latest checkpoint of every run, smallest first: a machine lost between two calls then
#        costs one call's training, not the whole sweep — run 5 lost both its runs that way)
#   bash code/gpu.sh collect WAIT_S SHAPE...        # wait for the runs' final checkpoints, bring them back
#   bash code/gpu.sh parts TAG SHAPE FROM [SHAPE FROM]...  # the parts a call could not bring back (next call)
# Checkpoints come back under $OUT packed (ckpt_pack.py: bf16 byte planes, ~70 % of the size) and split into 15 MiB
# parts, at most MAX_PARTS (4) a call: a call brings back at most 8 files of 16 MiB, 64 MiB in all, and logs.tgz is
# one of them. What did not fit is staged in $WORK/bring and the call prints the `parts` command that brings the
# rest; then: cat SHAPE.TAG.part* > TAG.lsz; python training/ckpt_pack.py unpack TAG.lsz TAG.safetensors (sha256
# printed on both machines).
# TRAIN_ARGS replaces the GPU defaults below (a CPU dry run: TRAIN_ARGS="--batch 2 --seq 128 --warmup 5").
set -u
CMD=$1; shift
WORK=${WORK:-/tmp/laya-train}
MAX_PARTS=${MAX_PARTS:-4}
PART_SIZE=${PART_SIZE:-15M}  # split -b; each file back must stay under 16 MiB
TRAIN_ARGS=${TRAIN_ARGS:---batch 128 --seq 1024 --compile}
EXTRA_ARGS=${EXTRA_ARGS:-}  # added to every run's arguments (e.g. --qat-bits 4)
mkdir -p $WORK/tokens $WORK/logs

encode_new() {  # text shards without token files yet -> $WORK/tokens (tokenizers uses every core)
  for s in shard-*.jsonl.bz2 shard-*.jsonl.xz; do
    [ -f "$s" ] || continue
    [ -f "$WORK/tokens/${s%%.*}.meta.json" ] && continue
    python3 code/tokenizer.py encode --out tokenizer --shard "$s" --tokens $WORK/tokens || exit 1
  done
}

report() {  # the last validation and progress lines of each run
  tail -c 400 $WORK/logs/installed.log 2>/dev/null; echo
  for f in $WORK/logs/*.log; do
    [ "$f" = $WORK/logs/installed.log ] && continue
    [ -f "$f" ] || continue
    echo "== $f"; grep -E '"(val|decay|compile_failed|done)"' "$f" | tail -2; grep '"train"' "$f" | tail -1
    grep -E 'Error|error' "$f" | grep -v '"event"' | tail -2
  done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null || true
}

watch_for() {
  local t0; t0=$(date +%s)
  while [ $(( $(date +%s) - t0 )) -lt "$1" ]; do sleep 30; report; done
}

stage() {  # stage TAG SHAPE: split the run's TAG (else latest) checkpoint into $WORK/bring; prints the tag staged
  local tag=$1 n=$2
  [ -f "$WORK/runs/$n/$tag.safetensors" ] || tag=latest
  [ -f "$WORK/runs/$n/$tag.safetensors" ] || { echo "no checkpoint of $n" >&2; return 1; }
  rm -f "$WORK/bring/$n".*
  mkdir -p $WORK/bring
  cp "$WORK/runs/$n/$tag.safetensors" "$WORK/bring/$n.$tag.safetensors"  # a snapshot: latest moves on
  python3 $WORK/code/ckpt_pack.py pack "$WORK/bring/$n.$tag.safetensors" "$WORK/bring/$n.$tag.lsz" >&2  # ~70 %
  split -b "$PART_SIZE" -d -a 2 "$WORK/bring/$n.$tag.lsz" "$WORK/bring/$n.$tag.part"
  (cd $WORK/bring && sha256sum "$n.$tag.safetensors") | tee -a $WORK/logs/checkpoints.sha256 >&2
  echo "$tag"
}

send() {  # send STEM FROM: copy staged parts FROM.. into $OUT while the call's budget (SENT) lasts
  local stem=$1 i=$2 p  # NEXT: the first part left behind, or "done"
  while :; do
    p=$(printf '%s/bring/%s.part%02d' "$WORK" "$stem" "$i")
    [ -f "$p" ] || { NEXT=done; return; }
    [ "$SENT" -ge "$MAX_PARTS" ] && { NEXT=$i; return; }
    cp "$p" "$OUT/"; SENT=$((SENT + 1)); i=$((i + 1))
  done
}

bring_back() {  # bring_back TAG SHAPE...: checkpoints (TAG, else latest) as parts, plus all logs
  local tag=$1 n t next left=""; shift
  tar czf "$OUT/logs.tgz" -C $WORK logs $(cd $WORK && ls runs/*/log.jsonl runs/*/config.json 2>/dev/null) 2>/dev/null
  SENT=0
  for n in "$@"; do
    t=$(stage "$tag" "$n") || continue
    send "$n.$t" 0
    [ "$NEXT" = done ] || left="$left $n $NEXT"
  done
  [ -n "$left" ] && echo "LEFT: bash code/gpu.sh parts $tag$left   # the next call, while this machine is warm"
  ls -la "$OUT"
}

case "$CMD" in
  start)
    BUDGET=$1; WATCH=$2; shift 2
    nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv 2>/dev/null || echo "no nvidia-smi"
    python3 -c 'import torch, transformers, tokenizers; print(torch.__version__, transformers.__version__, tokenizers.__version__)'
    rm -rf $WORK/code $WORK/tokenizer
    cp -r code tokenizer $WORK/
    encode_new
    if [ -f eval-pack.npz ] && [ ! -f $WORK/tokens/shard-10.meta.json ]; then  # the machine's own packages
      cp eval-pack.npz $WORK/; mkdir -p $WORK/text
      site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
      (cd $WORK && PYTHONUNBUFFERED=1 setsid nohup bash -c "python3 code/corpus.py --installed $site \
        --eval-pack eval-pack.npz --out text/shard-10.jsonl --report logs/installed.json --workers ${INSTALLED_WORKERS:-8} \
        && python3 code/tokenizer.py encode --out tokenizer --shard text/shard-10.jsonl --tokens tokens" \
        > $WORK/logs/installed.log 2>&1 < /dev/null &)
    fi
    for spec in "$@"; do
      set -- $spec
      init=${4:+--init $(pwd)/../$4 --warmup 50}
      PYTHONUNBUFFERED=1 setsid nohup python3 $WORK/code/train.py --shape "$1" --lr "$2" --workers "$3" $init \
        $TRAIN_ARGS $EXTRA_ARGS --time-budget "$BUDGET" --decay-frac 0.3 --ckpt-every 120 \
        --data $WORK/tokens --tokenizer $WORK/tokenizer --out "$WORK/runs/$1" > "$WORK/logs/$1.log" 2>&1 < /dev/null &
    done
    watch_for "$WATCH" ;;
  feed)
    WATCH=$1; shift
    encode_new
    watch_for "$WATCH"
    if [ $# -gt 0 ]; then bring_back "$@"
    else bring_back latest $(cd $WORK/runs 2>/dev/null && ls -S -r */latest.safetensors 2>/dev/null | cut -d/ -f1)
    fi ;;
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
  parts)  # parts TAG SHAPE FROM [SHAPE FROM]...: the staged parts FROM.. of each shape's TAG checkpoint
    TAG=$1; shift; SENT=0; left=""
    while [ $# -ge 2 ]; do
      first=$(ls "$WORK/bring/$1.$TAG.part00" "$WORK/bring/$1".*.part00 2>/dev/null | head -1)  # TAG, else the one
      [ -n "$first" ] || { echo "nothing staged for $1 (a fresh machine?)"; exit 1; }  # staged (latest for final)
      stem=$(basename "$first" .part00)
      send "$stem" "$2"
      [ "$NEXT" = done ] || left="$left $1 $NEXT"
      shift 2
    done
    [ -n "$left" ] && echo "LEFT: bash code/gpu.sh parts $TAG$left"
    cat $WORK/logs/checkpoints.sha256 2>/dev/null
    ls -la "$OUT" ;;
  *) echo "unknown verb $CMD"; exit 2 ;;
esac

#!/bin/sh
# Resume the reference's whole-file runs in the background, niced (each batch is a
# `nice -n 19` subprocess too): a fresh Python every few batches picks up code changes.
# Usage, from the repository root:  nohup benchmarks/reference_whole_files.sh &
# Progress: python benchmarks/reference_whole_files.py --status
cd "$(dirname "$0")/.." || exit 1
mkdir -p benchmarks/results
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
while :; do
    nice -n 19 python benchmarks/reference_whole_files.py --resume --max-batches 5 "$@" \
        >> benchmarks/results/whole-files.log 2>&1
    [ $? -eq 0 ] || break
done

#!/usr/bin/env bash
# Instructions per operation, the figure that machine load does not move: runs each profile case
# of the Benchmarks under `valgrind --tool=callgrind` twice, COUNT and 2 x COUNT times, and prints
# the difference divided by COUNT (start-up and warm-up cancel out).
#
# usage: Benchmarks/callgrind.sh [COUNT] [CASE ...]     (default: 2000, the cases below)
# Needs a release build first: swift build -c release --product Benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BENCHMARKS_BINARY:-.build/release/Benchmarks}
count=${1:-2000}
shift || true
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(readme readme-by-hand readme-build readme-built-once empty-graph one-sync-node dispatch bare-reducer dispatch-floor
         one-async-node task-value calls-child-tasks calls-tasks chain chain-by-hand chain-build chain-floor
         readme-floor fan fan-by-hand
         combine-first combine-last by-hand-first by-hand-last notify select)
fi
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" --profile-case "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-16s %s\n' "case" "instructions per operation (marginal, $count to $((2 * count)))"
for name in "${cases[@]}"; do
  once=$(instructions "$name" "$count")
  twice=$(instructions "$name" "$((2 * count))")
  printf '%-16s %d\n' "$name" $(((twice - once) / count))
done

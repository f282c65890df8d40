#!/usr/bin/env bash
# Runs the package-benchmark micro-benchmarks (Benchmarks/, release) in quick mode — a few
# iterations each, figures meaningless — and fails unless every listed benchmark produced a result.
# package-benchmark's exit status stays 0 when a benchmark or its setup throws (it prints
# "Benchmark <name> failed with <error>" and drops the result), so the output is what is checked.
#
# Usage: scripts/package-benchmark-check.sh [output-file]    (exit 0 ok, 1 a benchmark failed)
#
# The nested package builds Strata in release for itself. With PACKAGE_BENCHMARK_CACHE=DIR (what
# .ci/run sets) it builds in a copy of this tree kept in DIR/tree and synced by scripts/sync-tree,
# so a fresh clone rebuilds only what changed (as scripts/fuzz does with FUZZ_CACHE); without it,
# in Benchmarks/.build of this tree.
set -euo pipefail
OUT="${1:-/dev/null}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac  # relative to the caller, not Benchmarks/
mkdir -p "$(dirname "$OUT")"
cd "$(dirname "$0")/.."
if [ -n "${PACKAGE_BENCHMARK_CACHE:-}" ]; then
  mkdir -p "$PACKAGE_BENCHMARK_CACHE/tree"
  scripts/sync-tree . "$PACKAGE_BENCHMARK_CACHE/tree"
  cd "$PACKAGE_BENCHMARK_CACHE/tree"
fi
cd Benchmarks

# The listing builds the package: when that fails, say why instead of exiting without a word.
listing="$(swift package --disable-sandbox benchmark list 2>&1)" || {
  printf '%s\n' "$listing" | grep -E "error:" | head -20 >&2
  echo "package-benchmark: the benchmarks do not build" >&2
  exit 1
}
listed="$(printf '%s\n' "$listing" | awk '/available benchmarks:/ { on = 1; next } on && NF { print }')"
if [ -z "$listed" ]; then
  echo "package-benchmark: no benchmarks listed" >&2
  exit 1
fi
run="$(STRATA_BENCH_QUICK=1 swift package --disable-sandbox benchmark --no-progress 2>&1)" || {
  printf '%s\n' "$run" | tail -30 >&2
  echo "package-benchmark: the run itself failed" >&2
  exit 1
}
printf '%s\n' "$run" > "$OUT"

status=0
if grep -E "failed with|setup failed" <<< "$run" >&2; then status=1; fi
while IFS= read -r name; do
  if ! grep -qxF -- "$name" <<< "$run"; then
    echo "package-benchmark: no result for '$name'" >&2
    status=1
  fi
done <<< "$listed"
count="$(printf '%s\n' "$listed" | wc -l)"
if [ "$status" -eq 0 ]; then
  echo "package-benchmark: all $count benchmarks ran (quick mode)"
fi
exit "$status"

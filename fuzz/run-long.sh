#!/usr/bin/env bash
# Fuzzes each target for a given time, starting from its committed corpus and the seeds in its
# crate's tests/data, then minimizes the grown corpus back into fuzz/corpus/TARGET.
#
#   fuzz/run-long.sh SECONDS [TARGET...]      (every target by default)
#
# SECONDS=0 only minimizes the corpus (the figures are then those of the last run's log).
# Builds once (cargo fuzz build --debug-assertions, as CI does), runs one target at a time
# under `nice -n 10`, and prints per target: execs, coverage (cov and ft from libFuzzer's last
# status line), corpus size, crashes. A crash stops that target's run (its input is in
# fuzz/artifacts/TARGET/); the script goes on with the next target and exits 1 at the end.
# Environment: MINIMIZE=0 skips `cargo fuzz cmin`; FUZZ_MAX_LEN (8192) bounds inputs;
# FUZZ_TIMEOUT (60) is the seconds one input may take before it counts as a crash (a hang);
# FUZZ_RESULTS names a file the result rows are appended to (markdown, as in README.md).
set -euo pipefail
cd "$(dirname "$0")"
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
    echo "usage: fuzz/run-long.sh SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift
export RUSTC_BOOTSTRAP=1
max_len=${FUZZ_MAX_LEN:-8192}
timeout=${FUZZ_TIMEOUT:-60}
minimize=${MINIMIZE:-1}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi
nice -n 10 cargo fuzz build --debug-assertions

# The seed folder of a target, from its <crate>_ prefix (as .ci/run maps it); the targets
# that open whole experiments get the real experiments packed by bundle.py.
seeds_of() {
    case "$1" in
        experiment_open | columnar_experiment)
            python3 bundle.py target/seeds/experiments ../experiment/tests/data/*/test.1.er >/dev/null
            echo target/seeds/experiments
            ;;
        jvmpi_*) echo ../jvmpi-types/tests/data ;;
        columnar_*) echo ../hprof/tests/data/binary ;;
        *) echo "../${1%%_*}/tests/data" ;;
    esac
}

corpus_size() {
    local n bytes
    n=$(find "$1" -type f | wc -l)
    bytes=$(find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    echo "$n files, $bytes bytes"
}

# Minimizes the corpus as `cargo fuzz cmin` does (libFuzzer's merge), but smaller: the seeds'
# coverage counts as already had, so only inputs adding coverage beyond the seeds stay (none
# longer than max_len); the merge is by edges (-use_counters=0, not hit counts) and picks a
# greedy set cover (-set_cover_merge=1), which keeps the committed corpora to a few MB.
minimize() {
    local target=$1 corpus=$2 seeds=$3 work f
    work=$(mktemp -d "$PWD/target/cmin.XXXXXX")
    mkdir "$work/out"
    if [ -d "$seeds" ]; then
        find "$seeds" -type f | while read -r f; do
            head -c "$max_len" "$f" >"$work/out/seed-$(sha1sum <"$f" | cut -c1-40)"
        done
    fi
    find "$corpus" -type f -size +"${max_len}"c -delete
    nice -n 10 "target/x86_64-unknown-linux-gnu/release/$target" -set_cover_merge=1 -use_counters=0 \
        -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=4096 \
        "$work/out" "$corpus" >"logs/$target.cmin.log" 2>&1
    rm -f "$work/out"/seed-*
    rm -rf "$corpus"
    mv "$work/out" "$corpus"
    rm -rf "$work"
}

failed=0
rows=()
for target in "${targets[@]}"; do
    corpus="corpus/$target"
    mkdir -p "$corpus" "artifacts/$target" logs
    seeds=$(seeds_of "$target")
    args=("$corpus")
    if [ -d "$seeds" ]; then args+=("$seeds"); fi
    log="logs/$target.log"
    before=$(find "artifacts/$target" -type f | wc -l)
    echo "--- $target: ${seconds}s from $(corpus_size "$corpus") + seeds $seeds"
    status=0
    if [ "$seconds" -gt 0 ]; then nice -n 10 cargo fuzz run --debug-assertions "$target" "${args[@]}" -- \
        -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1 || status=$?; fi
    crashes=$(( $(find "artifacts/$target" -type f | wc -l) - before ))
    if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    if [ "$crashes" -gt 0 ]; then
        failed=1
        grep -E 'panicked|ERROR: |SUMMARY|Test unit written' "$log" | head -n 8 || tail -n 20 "$log"
    elif [ "$minimize" = 1 ]; then
        minimize "$target" "$corpus" "$seeds"
    fi
    size=$(corpus_size "$corpus")
    echo "$target: ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus $size, crashes $crashes"
    rows+=("| $target | $seconds | ${execs:-?} | ${cov:-?} | ${ft:-?} | $crashes | $(date -u +%F) |")
done

echo
echo "| target | seconds | execs | cov | ft | crashes | date |"
echo "| --- | --: | --: | --: | --: | --: | --- |"
printf '%s\n' "${rows[@]}"
if [ -n "${FUZZ_RESULTS:-}" ]; then printf '%s\n' "${rows[@]}" >>"$FUZZ_RESULTS"; fi
exit "$failed"

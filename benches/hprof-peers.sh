#!/usr/bin/env bash
# hprof peers: generates large JDK 17 heap dumps with HeapGen in a scratch folder (never
# committed), then prints our class-histogram figures beside jvm-hprof on 1 and 2 threads
# (rayon `par_bridge`) and a minimal header-walking scan (in-process, alternated rounds over
# the same bytes in memory), and the streaming example and hprof-slurp (whole process:
# wall, CPU, peak RSS), as ratios against their targets (benches/README.md).
#
#   benches/hprof-peers.sh                     # medium (~250 MB) and large (~1.25 GB) dumps
#   HPROF_SIZES="small:9" benches/hprof-peers.sh
#   HPROF_SCRATCH=/some/dir RUNS=9 benches/hprof-peers.sh
#
# Needs Java 17 (javac, java) and the shared HeapGen tool (../shared/tools/heapgen).
# hprof-slurp is optional: `cargo install hprof-slurp`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=${HPROF_SCRATCH:-/tmp/hprof-peers}
sizes=${HPROF_SIZES:-"medium:134 large:680"}
runs=${RUNS:-9}
heapgen_src=${HEAPGEN:-$root/../shared/tools/heapgen/HeapGen.java}

mkdir -p "$scratch/heapgen"
if [ ! -f "$scratch/heapgen/HeapGen.class" ]; then
    javac -d "$scratch/heapgen" "$heapgen_src"
fi
for s in $sizes; do
    name=${s%%:*}
    mb=${s##*:}
    if [ ! -f "$scratch/$name.hprof" ]; then
        echo "generating $scratch/$name.hprof (HeapGen $mb MB)"
        java -Xmx8g -cp "$scratch/heapgen" HeapGen "$scratch/$name.hprof" "$mb"
    fi
done

cargo build --quiet --release -p hprof-format --example histogram
cargo bench --quiet --no-run -p benches --no-default-features --features hprof --bench hprof
target=${CARGO_TARGET_DIR:-$root/target}
hist="$target/release/examples/histogram"

# median of numbers on stdin
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# whole-process timing: prints "wall cpu maxrss_kb" medians over $runs runs (after one warm-up)
measure() {
    local log
    log=$(mktemp)
    "$@" >/dev/null 2>&1 || true
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %U %S %M' -a -o "$log" "$@" >/dev/null 2>/dev/null
    done
    local wall cpu rss
    wall=$(awk '{print $1}' "$log" | median)
    cpu=$(awk '{print $2 + $3}' "$log" | median)
    rss=$(awk '{print $4}' "$log" | median)
    rm -f "$log"
    echo "$wall $cpu $rss"
}

for s in $sizes; do
    name=${s%%:*}
    file="$scratch/$name.hprof"
    bytes=$(stat -c %s "$file")
    cat "$file" >/dev/null
    echo
    echo "=== $name.hprof ($bytes bytes)"
    echo "--- in-process, paired runs over the same bytes (CPU = user+sys of the process)"
    HPROF_PEERS=1 HPROF_PAIRS="$runs" HPROF_BENCH_FILE="$file" \
        cargo bench --quiet -p benches --no-default-features --features hprof --bench hprof
    echo "--- whole process (median of $runs; wall s / CPU s / peak RSS MB / MB/s wall)"
    read -r cw cc cr < <(measure sh -c "cat '$file' >/dev/null")
    read -r h1w h1c h1r < <(measure "$hist" "$file")
    read -r h2w h2c h2r < <(measure "$hist" --threads 2 "$file")
    row() { awk -v n="$1" -v w="$2" -v c="$3" -v r="$4" -v b="$bytes" \
        'BEGIN {printf "%-34s %7.3f %7.3f %8.1f %8.0f\n", n, w, c, r/1024, b/1e6/w}'; }
    row "cat" "$cw" "$cc" "$cr"
    row "ours: histogram example (1 thread)" "$h1w" "$h1c" "$h1r"
    row "ours: histogram --threads 2" "$h2w" "$h2c" "$h2r"
    if command -v hprof-slurp >/dev/null 2>&1; then
        read -r sw sc sr < <(measure hprof-slurp "$file")
        row "hprof-slurp" "$sw" "$sc" "$sr"
        awk -v a="$sw" -v b="$h1w" -v c="$sc" -v d="$h1c" -v e="$h2w" \
            'BEGIN {printf "speed-up vs hprof-slurp: 1 thread %.2fx wall, %.2fx CPU; 2 threads %.2fx wall\n", a/b, c/d, a/e}'
    else
        echo "(hprof-slurp not installed: cargo install hprof-slurp)"
    fi
    awk -v a="$h1w" -v b="$cw" -v c="$h1c" -v d="$cc" \
        'BEGIN {printf "ours 1 thread / cat: %.2fx wall, %.2fx CPU (target <= 1.3x)\n", a/b, c/d}'
    awk -v r="$h1r" -v r2="$h2r" 'BEGIN {printf "(c) streaming peak RSS: %.1f MB (1 thread), %.1f MB (2 threads) (target <= 64 MB): %s\n", r*1024/1e6, r2*1024/1e6, (r*1024 <= 64e6 && r2*1024 <= 64e6) ? "met" : "MISSED"}'
done

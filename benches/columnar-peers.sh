#!/usr/bin/env bash
# columnar: how `to-parquet` compares with streaming the same dump (`histogram`) plus writing
# as many bytes as the Parquet output holds, on HeapGen dumps of 20 MB, 250 MB and 1.25 GB
# (the dumps of benches/hprof-peers.sh): wall and CPU seconds, peak RSS (file pages of the
# memory-mapped dump included), output size. Whole-process figures, medians of RUNS runs.
#
#   benches/columnar-peers.sh
#   HPROF_SIZES="small:9" RUNS=3 benches/columnar-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=${HPROF_SCRATCH:-/tmp/hprof-peers}
sizes=${HPROF_SIZES:-"small:9 medium:134 large:680"}
runs=${RUNS:-3}
heapgen_src=${HEAPGEN:-$root/../shared/tools/heapgen/HeapGen.java}

mkdir -p "$scratch/heapgen"
if [ ! -f "$scratch/heapgen/HeapGen.class" ]; then
    javac -d "$scratch/heapgen" "$heapgen_src"
fi
for s in $sizes; do
    name=${s%%:*}
    if [ ! -f "$scratch/$name.hprof" ]; then
        java -Xmx8g -cp "$scratch/heapgen" HeapGen "$scratch/$name.hprof" "${s##*:}"
    fi
done
cargo build --quiet --release -p hprof-format --example histogram
cargo build --quiet --release -p jvmprof-columnar --features fs --example to-parquet
target=${CARGO_TARGET_DIR:-$root/target}/release/examples

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# prints "wall cpu maxrss_kb" medians over $runs runs after one warm-up
measure() {
    local log
    log=$(mktemp)
    "$@" >/dev/null 2>&1 || true
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %U %S %M' -a -o "$log" "$@" >/dev/null 2>/dev/null || true
    done
    echo "$(awk '{print $1}' "$log" | median) $(awk '{print $2 + $3}' "$log" | median) $(awk '{print $4}' "$log" | median)"
    rm -f "$log"
}

printf '%-7s %9s | %-22s | %-22s | %-14s | %-8s | %s\n' dump size "histogram wall/cpu/MB" "to-parquet wall/cpu/MB" "write out wall" "out/dump" "to-parquet / (histogram + write)"
for s in $sizes; do
    name=${s%%:*}
    dump="$scratch/$name.hprof"
    out="$scratch/$name.parquet.d"
    read -r hw hc hm <<<"$(measure "$target/histogram" "$dump")"
    read -r pw pc pm <<<"$(measure "$target/to-parquet" --force "$dump" "$out")"
    out_bytes=$(du -sb "$out" | awk '{print $1}')
    dump_bytes=$(stat -c %s "$dump")
    read -r ww _ _ <<<"$(measure dd if=/dev/zero of="$scratch/write-test" bs=1M count=$((out_bytes / 1048576 + 1)) conv=fsync)"
    rm -f "$scratch/write-test"
    printf '%-7s %7d MB | %6.2f s %6.2f s %5d | %6.2f s %6.2f s %5d | %6.2f s      | %8.3f | %.1f× wall, %.1f× cpu\n' \
        "$name" $((dump_bytes / 1000000)) "$hw" "$hc" $((hm / 1024)) "$pw" "$pc" $((pm / 1024)) "$ww" \
        "$(awk "BEGIN {print $out_bytes / $dump_bytes}")" \
        "$(awk "BEGIN {print $pw / ($hw + $ww)}")" "$(awk "BEGIN {print $pc / ($hc + $ww)}")"
done

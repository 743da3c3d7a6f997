#!/usr/bin/env bash
# hprof graph peers: `dominators --top 10` (our example, the dump memory-mapped) against AOSP
# ahat (../shared/tools/ahat-peer, `--top 10`) on HeapGen JDK 17 dumps of ~20 MB, ~250 MB and
# ~1.25 GB, whole process: wall, user+sys CPU and peak RSS (median of $RUNS, /usr/bin/time),
# and the ratios ahat/ours. Dumps are generated in a scratch folder (never committed), the
# same as benches/hprof-peers.sh makes.
#
#   benches/hprof-graph-peers.sh                          # small:9 medium:134 large:680
#   HPROF_SIZES="small:9 medium:134" RUNS=3 benches/hprof-graph-peers.sh
#   AHAT_XMX="small:1g medium:4g large:14g" benches/hprof-graph-peers.sh
#
# Peak RSS of ours counts the mapped dump's pages it touched (file-backed, shared with the page
# cache); the "anon" column subtracts the file size to show what we allocate.
# Needs Java 17 (javac, java, jar) and the shared HeapGen and ahat-peer tools.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=${HPROF_SCRATCH:-/tmp/hprof-peers}
sizes=${HPROF_SIZES:-"small:9 medium:134 large:680"}
runs=${RUNS:-3}
xmx=${AHAT_XMX:-"small:1g medium:4g large:14g"}
heapgen_src=${HEAPGEN:-$root/../shared/tools/heapgen/HeapGen.java}
ahat_src=${AHAT_PEER_SRC:-$root/../shared/tools/ahat-peer}

mkdir -p "$scratch/heapgen"
if [ ! -f "$scratch/heapgen/HeapGen.class" ]; then
    javac -d "$scratch/heapgen" "$heapgen_src"
fi
if [ ! -f "$scratch/ahat-peer/build/ahat-peer.jar" ]; then
    rm -rf "$scratch/ahat-peer"
    cp -r "$ahat_src" "$scratch/ahat-peer"
    sh "$scratch/ahat-peer/build.sh"
fi
jar="$scratch/ahat-peer/build/ahat-peer.jar"
for s in $sizes; do
    name=${s%%:*}
    mb=${s##*:}
    if [ ! -f "$scratch/$name.hprof" ]; then
        echo "generating $scratch/$name.hprof (HeapGen $mb MB)"
        java -Xmx8g -cp "$scratch/heapgen" HeapGen "$scratch/$name.tmp.hprof" "$mb"
        mv "$scratch/$name.tmp.hprof" "$scratch/$name.hprof"
    fi
done

cargo build --quiet --release -p hprof-format --example dominators
target=${CARGO_TARGET_DIR:-$root/target}
ours="$target/release/examples/dominators"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# prints "wall cpu maxrss_kb" medians over $runs runs (after one warm-up)
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
    objects=$("$ours" "$file" --top 0 | head -1 | sed 's/.*"objects":\([0-9]*\).*/\1/')
    heap=$(for x in $xmx; do if [ "${x%%:*}" = "$name" ]; then echo "${x##*:}"; fi; done)
    heap=${heap:-4g}
    echo
    echo "=== $name.hprof ($bytes bytes, $objects objects); ahat -Xmx$heap"
    # Same answer first: both print the same top 10 ids under the ahat policy.
    diff <("$ours" "$file" --top 10 --policy ahat | tail -n +2 | sed 's/.*"id":\([0-9]*\).*/\1/') \
         <(java "-Xmx$heap" -jar "$jar" --top 10 --quiet "$file" 2>/dev/null | tail -n +2 | sed 's/.*"id": \([0-9]*\).*/\1/') \
        && echo "top 10 under the ahat policy: identical ids"
    read -r ow oc orss < <(measure "$ours" "$file" --top 10)
    read -r aw ac arss < <(measure java "-Xmx$heap" -jar "$jar" --top 10 --quiet "$file")
    awk -v n="$name" -v b="$bytes" -v o="$objects" -v ow="$ow" -v oc="$oc" -v orss="$orss" \
        -v aw="$aw" -v ac="$ac" -v arss="$arss" 'BEGIN {
        anon = orss * 1024 - b; if (anon < 0) anon = 0
        printf "%-22s %8s %8s %10s %10s %8s\n", "", "wall s", "CPU s", "RSS MB", "anon MB", "B/object"
        printf "%-22s %8.2f %8.2f %10.0f %10.0f %8.1f\n", "ours dominators", ow, oc, orss/1024, anon/1e6, anon/o
        printf "%-22s %8.2f %8.2f %10.0f %10s %8.1f\n", "ahat", aw, ac, arss/1024, "", arss*1024/o
        printf "%-22s %8.1fx %7.1fx %9.1fx\n", "ratio ahat/ours", aw/ow, ac/oc, arss/orss
    }'
done

#!/usr/bin/env bash
# The publishing bar: every published crate packages and builds on its own as crates.io would
# see it, its package holds the source, README and licences but no test corpora and stays
# small, and its name is free on crates.io or already ours.
set -euo pipefail
cd "$(dirname "$0")/.."
# The size bar: 200 KiB until hprof-format, the largest (the binary and ASCII formats, the heap
# graph at billions of objects, six example tools), passed it by 2 KiB with its source alone
# (2026-11-28, issue 29). The other checks (no test data, the files a package needs) are what
# keeps a package to its source; the bar catches anything large slipping in.
max_bytes=$((256 * 1024))
ours="https://github.com/jvmprof-formats/jvmprof-formats"
allow_dirty=()
if [ -z "${CI:-}" ]; then allow_dirty=(--allow-dirty); fi

# Builds every package from its .crate, dependencies between them resolved as on crates.io.
# A package directory left by an earlier run holds crates of the same version with older
# contents, which the verification would take for the ones being packaged: start clean.
# Cargo also keeps the sources it unpacked from that temporary registry under
# $CARGO_HOME/registry/src/-<hash>/ (a registry without a host name), and reuses them for a
# crate of the same name and version: remove them too.
rm -rf target/package
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for d in "$cargo_home"/registry/src/-* "$cargo_home"/registry/cache/-*; do
    if [ -d "$d" ]; then rm -rf "$d"; fi
done
# Cargo does not recheck a registry crate's sources either: what an earlier run built from that
# temporary registry (found by the dependency files naming it) would be linked again as it was.
for dep_info in target/debug/deps/*.d; do
    [ -e "$dep_info" ] || continue
    if grep -q "registry/src/-" "$dep_info"; then
        hash=${dep_info%.d}
        hash=${hash##*-}
        rm -rf target/debug/deps/*-"$hash"* target/debug/.fingerprint/*-"$hash"
    fi
done
cargo publish --workspace --dry-run "${allow_dirty[@]}"
cargo package --workspace --no-verify "${allow_dirty[@]}" >/dev/null 2>&1

published=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p.get("publish") is None or p["publish"]:
        print(p["name"], p["version"])')
[ -n "$published" ] || { echo "no published packages found"; exit 1; }

fail=0
while read -r name version; do
    crate="target/package/$name-$version.crate"
    size=$(stat -c %s "$crate")
    files=$(tar -tzf "$crate" | sed "s|^$name-$version/||")
    for need in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE src/lib.rs; do
        grep -qx "$need" <<<"$files" || { echo "$name: package lacks $need"; fail=1; }
    done
    if grep -E '^(tests|benches|fuzz)/|\.(hprof|iprof|gz|xz|er|bin|dat)$|/data/' <<<"$files"; then
        echo "$name: package carries test data (above)"; fail=1
    fi
    if [ "$size" -gt "$max_bytes" ]; then
        echo "$name: package is $size bytes (limit $max_bytes)"; fail=1
    fi
    # Free on crates.io, or ours.
    if info=$(cargo info "$name" --registry crates-io 2>&1); then
        grep -q "$ours" <<<"$info" || { echo "$name: taken on crates.io by someone else"; fail=1; }
        owner="ours"
    elif grep -q "could not find" <<<"$info"; then
        owner="free"
    else
        echo "$name: could not ask crates.io: $info"; fail=1; owner="?"
    fi
    printf '%-20s %7d bytes %4d files  name %s\n' "$name" "$size" "$(wc -l <<<"$files")" "$owner"
done <<<"$published"
exit $fail

#!/usr/bin/env bash
# Every published crate's doc tests, run inside its packaged .crate as crates.io users get it:
# a doc example that reads a file of the repository, or needs something the package does not
# ship, fails here. The family's crates resolve to each other's packages through a patch.
set -euo pipefail
cd "$(dirname "$0")/.."
allow_dirty=()
if [ -z "${CI:-}" ]; then allow_dirty=(--allow-dirty); fi
rm -rf target/package
cargo package --workspace --no-verify "${allow_dirty[@]}" >/dev/null 2>&1 \
    || cargo package --workspace --no-verify "${allow_dirty[@]}"

published=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p.get("publish") is None or p["publish"]:
        print(p["name"], p["version"])')

dir=target/packaged-doctests
rm -rf "$dir"
mkdir -p "$dir"
members=""
patches=""
while read -r name version; do
    # -m: the files get the time of extraction, not the package's fixed one, so a build
    # left in target/ from an earlier package of the same version is not taken as current.
    tar -xzmf "target/package/$name-$version.crate" -C "$dir"
    members+="    \"$name-$version\",\n"
    patches+="$name = { path = \"$name-$version\" }\n"
done <<<"$published"
printf '[workspace]\nresolver = "3"\nmembers = [\n%b]\n\n[patch.crates-io]\n%b' \
    "$members" "$patches" >"$dir/Cargo.toml"
# The repository's lock file keeps the dependencies at the versions CI tests with.
cp Cargo.lock "$dir/Cargo.lock"
# The repository's target folder: the dependencies are built once.
CARGO_TARGET_DIR="$PWD/target" cargo test --doc --workspace --all-features --manifest-path "$dir/Cargo.toml"

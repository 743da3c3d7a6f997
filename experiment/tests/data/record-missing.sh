#!/usr/bin/env bash
# gprofng's function list and leaks of cases whose load objects it cannot find, for
# tests/missing_objects.rs (our placeholder `<static>@0x… (<libc.so.6>) --  no functions found`
# and its offsets must read as gprofng's).
#
# Run from experiment/tests/data with the gprofng that recorded the cases (2.40, Debian 12).
# Each case is viewed from a copy without archives/ whose map.xml records every load object
# under /nonexistent/…: gprofng finds none of them (not in the experiment's folder, the current
# folder or at the recorded path), as on a machine that has none of the recording machine's
# files.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for case in clock_basic heap iotrace many_threads sync_all; do
    mkdir -p "$tmp/$case" "$case/missing-objects"
    cp -r "$case/test.1.er" "$tmp/$case/"
    rm -rf "$tmp/$case/test.1.er/archives"
    find "$tmp/$case/test.1.er" -name map.xml -exec sed -i 's#name="/#name="/nonexistent/#g' {} +
    (cd "$tmp/$case" && gprofng display text -functions test.1.er) > "$case/missing-objects/functions.txt"
    if [ -s "$case/leaks.txt" ]; then
        (cd "$tmp/$case" && gprofng display text -leaks test.1.er) > "$case/missing-objects/leaks.txt"
    fi
done

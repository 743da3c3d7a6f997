#!/usr/bin/env bash
# gprofng's callers-callees, source lines, leaks and allocations views of every case, for the tests that
# compare er-callers / er-lines / er-leaks with them value by value (tests/views.rs,
# tests/lines.rs).
#
# Run from experiment/tests/data with the gprofng that recorded the cases (2.40, Debian 12) on a
# machine holding the load objects at their recorded paths. The fixtures' archives/ keep only
# the names of the system libraries' copies (empty files, see README.md); gprofng given an
# empty archive file names nothing in it, while the experiment as recorded had the full copy.
# So each case is viewed from a copy without those empty files (and with the program beside
# it where the case keeps one there): gprofng then reads the same
# libraries from their recorded paths, as it read the archived copies.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for case in */; do
    case=${case%/}
    [ -d "$case/test.1.er" ] || continue
    rm -rf "${tmp:?}/$case"
    mkdir -p "$tmp/$case"
    cp -r "$case/test.1.er" "$tmp/$case/"
    find "$tmp/$case/test.1.er" -path '*/archives/*' -type f -empty -delete
    # A program kept beside the experiment (killed: nothing archived) stays beside it.
    if [ -f "$case/prog" ]; then cp "$case/prog" "$tmp/$case/"; fi
    gprofng display text -callers-callees "$tmp/$case/test.1.er" > "$case/callers-callees.txt"
    gprofng display text -lines "$tmp/$case/test.1.er" > "$case/lines.txt"
    if grep -q 'kind="5"\|heaptrace' "$case/test.1.er/log.xml" 2>/dev/null && [ -s "$case/test.1.er/heaptrace" ]; then
        gprofng display text -leaks "$tmp/$case/test.1.er" > "$case/leaks.txt"
        gprofng display text -allocs "$tmp/$case/test.1.er" > "$case/allocs.txt"
    fi
done

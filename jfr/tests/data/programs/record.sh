#!/usr/bin/env bash
# Records the committed fixtures in ../ (jfr/tests/data/) with the JDK on PATH (17 here):
# each program under settings=default and settings=profile, and one recording in several
# chunks. Run from this folder: ./record.sh
set -euo pipefail
cd "$(dirname "$0")"
out=..
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
javac -d "$build" Cpu.java Alloc.java Locks.java Park.java
for program in Cpu Alloc Locks Park; do
    name=$(tr '[:upper:]' '[:lower:]' <<<"$program")
    for settings in default profile; do
        java -Xmx256m -XX:StartFlightRecording=settings=$settings,filename=$out/$name-$settings.jfr \
            -cp "$build" "$program" 2500 >/dev/null
    done
done
# The TLAB allocation events, off in both settings files since JDK 16, turned on.
java -Xmx256m "-XX:StartFlightRecording=settings=default,jdk.ObjectAllocationInNewTLAB#enabled=true,jdk.ObjectAllocationOutsideTLAB#enabled=true,filename=$out/alloc-tlab.jfr" \
    -cp "$build" Alloc 1000 >/dev/null
# Several chunks: the recorder starts a new chunk whenever one reaches maxchunksize (1 MB is
# the smallest it takes), and the dump is those chunks one after another.
java -Xmx256m -XX:FlightRecorderOptions=maxchunksize=1M \
    -XX:StartFlightRecording=settings=profile,filename=$out/alloc-chunks.jfr \
    -cp "$build" Alloc 6000 >/dev/null
# A chunk still being written: the recorder's repository file, copied while the program runs
# (the header says how far the last flush got; its generation byte is not yet 0).
repo=$(mktemp -d)
java -Xmx256m -XX:FlightRecorderOptions=repository=$repo -XX:StartFlightRecording=settings=profile \
    -cp "$build" Alloc 10000 >/dev/null &
sleep 6
cp "$(find "$repo" -name '*.jfr' | head -1)" $out/alloc-inprogress.jfr
wait
rm -rf "$repo"
ls -l $out/*.jfr

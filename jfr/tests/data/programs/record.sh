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
ls -l $out/*.jfr

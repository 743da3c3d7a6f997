#!/usr/bin/env bash
# Records a large heap-traced experiment with the installed gprofng (clock profiling + -H on):
# a C program that allocates BLOCKS blocks per pass, frees all but every 100th, for PASSES
# passes. About 80 bytes of heaptrace per event: PASSES=7 BLOCKS=600000 gives ~8.4 M packets
# (~700 MB). Experiments this size are generated, never committed.
#
# Usage: benches/make-large-experiment.sh OUT_DIR [PASSES] [BLOCKS]   (writes OUT_DIR/big.er)
set -euo pipefail
out=${1:?usage: make-large-experiment.sh OUT_DIR [PASSES] [BLOCKS]}
passes=${2:-7}
blocks=${3:-600000}
mkdir -p "$out"
cd "$out"
cat > big.c <<'C'
#include <stdlib.h>
#include <string.h>
static void *keep[1 << 20];
__attribute__((noinline)) void *small(int i) { return malloc(16 + (i & 63)); }
__attribute__((noinline)) void *large(int i) { return calloc(1, 4096 + (i & 255)); }
__attribute__((noinline)) void pass(int blocks, int p)
{
  for (int i = 0; i < blocks; i++) {
    void *b = (i & 7) ? small(i) : large(i);
    memset(b, p, 8);
    if (i % 100 == 0 && i / 100 < (1 << 20)) keep[i / 100] = b; else free(b);
  }
}
int main(int argc, char **argv)
{
  int passes = atoi(argv[1]), blocks = atoi(argv[2]);
  for (int p = 0; p < passes; p++) pass(blocks, p);
  return 0;
}
C
gcc -O1 -fno-omit-frame-pointer -o big big.c
rm -rf big.er
gprofng collect app -p on -H on -o big.er ./big "$passes" "$blocks" >/dev/null
du -sh big.er

#!/usr/bin/env bash
# Records the native source-line cases of experiment/tests/data: programs built with
# `-gdwarf-4` whose archived copies keep their DWARF line tables, recorded with clock profiling
# and heap tracing, with gprofng's `-lines` view and the other reference outputs. gprofng 2.40
# reads the line tables of DWARF 4 and older only (a DWARF 5 program, GCC 12's default, shows
# `<Function: f, instructions without line numbers>`), hence `-gdwarf-4`. Conventions as in
# record-extra.sh: CMD, DISPLAY_CMDS, collect.log, the source, the program's archived copy
# kept (with its .debug_* sections: gp-archive copies the file as it is), the system
# libraries' copies replaced by empty files listed in REMOVED_ARCHIVES.txt. The reference
# outputs are made before the copies are emptied.
#
#   dwarf4_lines  lines.c (+ include/mix.h) at -O0: hot loops, a header's function,
#                 recursion, heap lines; -p hi -H on
#   dwarf4_cxx    names.cc (cxx_names' program) at -O2: code inlined into its callers, GCC's
#                 clones, rows sharing an address; -p on -H on
#
# Usage: record-lines.sh [CASE]...   (default: both; writes experiment/tests/data/CASE)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
GP=${GPROFNG:-gprofng}
SCRATCH=${TMPDIR:-/tmp}/gprofng-lines
rm -rf "$SCRATCH"

record() { # case compiler flags source collect-options args
  local case=$1 cc=$2 flags=$3 src=$4 opts=$5 args=$6 dir=$SCRATCH/$1
  mkdir -p "$dir"
  cp "$HERE/extra-src/$src" "$dir/"
  : > "$dir/DISPLAY_CMDS"
  echo "$cc $flags -o prog $src" > "$dir/CMD"
  (cd "$dir" && $cc $flags -o prog "$src")
  echo "$GP collect app $opts -o test.1.er ./prog $args" >> "$dir/CMD"
  (cd "$dir" && "$GP" collect app $opts -o test.1.er ./prog $args > collect.log 2>&1)
  for c in header functions lines leaks allocs callers-callees; do
    (cd "$dir" && "$GP" display text "-$c" test.1.er > "$c.txt" 2>&1)
    echo "$GP display text -$c test.1.er > $c.txt" >> "$dir/DISPLAY_CMDS"
  done
  local ar=$dir/test.1.er/archives f
  : > "$dir/REMOVED_ARCHIVES.txt"
  for f in "$ar"/*; do
    case $(basename "$f") in prog_*) ;; *)
      echo "$(basename "$f") $(stat -c %s "$f")" >> "$dir/REMOVED_ARCHIVES.txt"; : > "$f";;
    esac
  done
  rm -f "$dir/prog"
  rm -rf "${HERE:?}/$case"; cp -r "$dir" "$HERE/$case"
}

cases=${*:-dwarf4_lines dwarf4_cxx}
for case in $cases; do
  case $case in
    dwarf4_lines)
      # 300 M iterations: about 6 s of CPU, of which this VM's profiling timer records ~1%.
      mkdir -p "$SCRATCH/dwarf4_lines/include"
      cp "$HERE/extra-src/include/mix.h" "$SCRATCH/dwarf4_lines/include/"
      record dwarf4_lines gcc "-gdwarf-4 -O0 -Iinclude" lines.c "-p hi -H on" 300000000;;
    dwarf4_cxx)
      record dwarf4_cxx g++ "-gdwarf-4 -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls" \
        names.cc "-p on -H on" "";;
    *) echo "unknown case $case" >&2; exit 2;;
  esac
done

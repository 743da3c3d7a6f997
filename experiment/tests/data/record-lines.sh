#!/usr/bin/env bash
# Records the `dwarf4_lines` case of experiment/tests/data: a C program built with
# `-gdwarf-4 -O0` whose archived copy keeps its DWARF line tables, recorded with clock
# profiling (`-p hi`) and heap tracing (`-H on`), with gprofng's `-lines` view and the other
# reference outputs. gprofng 2.40 reads the line tables of DWARF 4 and older only (a DWARF 5
# program, GCC 12's default, shows `<Function: f, instructions without line numbers>`), hence
# `-gdwarf-4`. Conventions as in record-extra.sh: CMD, DISPLAY_CMDS, collect.log, the source,
# the program's archived copy kept (19 KB, with its .debug_* sections: gp-archive copies the
# file as it is), the system libraries' copies replaced by empty files listed in
# REMOVED_ARCHIVES.txt. The reference outputs are made before the copies are emptied.
#
# Usage: record-lines.sh   (from anywhere; writes experiment/tests/data/dwarf4_lines)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
GP=${GPROFNG:-gprofng}
SCRATCH=${TMPDIR:-/tmp}/gprofng-lines
case=dwarf4_lines dir=$SCRATCH/dwarf4_lines
rm -rf "$SCRATCH"; mkdir -p "$dir/include"
cp "$HERE/extra-src/lines.c" "$dir/"; cp "$HERE/extra-src/include/mix.h" "$dir/include/"
: > "$dir/DISPLAY_CMDS"
echo "gcc -gdwarf-4 -O0 -Iinclude -o prog lines.c" > "$dir/CMD"
(cd "$dir" && gcc -gdwarf-4 -O0 -Iinclude -o prog lines.c)
# 300 M iterations: about 6 s of CPU, of which this VM's profiling timer records ~1%.
echo "$GP collect app -p hi -H on -o test.1.er ./prog 300000000" >> "$dir/CMD"
(cd "$dir" && "$GP" collect app -p hi -H on -o test.1.er ./prog 300000000 > collect.log 2>&1)
for c in header functions lines leaks allocs callers-callees; do
  (cd "$dir" && "$GP" display text "-$c" test.1.er > "$c.txt" 2>&1)
  echo "$GP display text -$c test.1.er > $c.txt" >> "$dir/DISPLAY_CMDS"
done
ar=$dir/test.1.er/archives
: > "$dir/REMOVED_ARCHIVES.txt"
for f in "$ar"/*; do
  case $(basename "$f") in prog_*) ;; *)
    echo "$(basename "$f") $(stat -c %s "$f")" >> "$dir/REMOVED_ARCHIVES.txt"; : > "$f";;
  esac
done
rm -f "$dir/prog"
rm -rf "${HERE:?}/$case"; cp -r "$dir" "$HERE/$case"

#!/usr/bin/env bash
# Records the extra fixture cases of experiment/tests/data with gprofng, following the
# conventions of ../shared/tools/make-experiment-corpus.sh (CMD, DISPLAY_CMDS, collect.log,
# reference `gprofng display text` outputs recorded with the experiment, archive copies of
# system libraries replaced by empty files of the same name and listed in
# REMOVED_ARCHIVES.txt).
#
#   cxx_names     C++ program (names.cc) at -O2: namespaces, templates, const methods,
#                 operators, anonymous namespace, GCC clones (.constprop, .isra, .part);
#                 -p on -H on
#   many_threads  24 threads allocating through three stack shapes (threads.c); -p on -H on
#   plt_leaf      a tight loop calling a one-line function of a shared library (plt.c,
#                 tiny.c): clock ticks whose leaf PC is the PLT stub; -p on
#   deepstack     make-experiment-corpus.sh's deep recursion case (copied from its output DIR)
#   killed        make-experiment-corpus.sh's killed-target case (copied; calltree added)
#
# Usage: record-extra.sh CORPUS_OUT CORPUS_BUILD   (make-experiment-corpus.sh's DEST and
#        GPROFNG_CORPUS_BUILD of a run made just before)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1 BUILD=$2
GP=${GPROFNG:-gprofng}
SCRATCH=${TMPDIR:-/tmp}/gprofng-extra
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"

display() { # dir exp cmds...
  local dir=$1 exp=$2; shift 2
  for c in "$@"; do
    (cd "$dir" && "$GP" display text "-$c" "$exp" > "$c.txt" 2>&1)
    echo "$GP display text -$c $exp > $c.txt" >> "$dir/DISPLAY_CMDS"
  done
}

empty_archives() { # dir: keep archives/prog_*, empty the others
  local ar=$1/test.1.er/archives f
  : > "$1/REMOVED_ARCHIVES.txt"
  [ -d "$ar" ] || return 0
  for f in "$ar"/*; do
    case $(basename "$f") in prog_*|libtiny.so_*) ;; *)
      echo "$(basename "$f") $(stat -c %s "$f")" >> "$1/REMOVED_ARCHIVES.txt"; : > "$f";;
    esac
  done
}

record() { # case compiler flags src [collect options]
  local case=$1 cc=$2 flags=$3 src=$4 opts=${5:--p on -H on} dir=$SCRATCH/$1 libs=""
  mkdir -p "$dir"; cp "$HERE/extra-src/$src" "$dir/"
  : > "$dir/DISPLAY_CMDS"
  : > "$dir/CMD"
  if [ "$case" = plt_leaf ]; then
    cp "$HERE/extra-src/tiny.c" "$dir/"
    echo "$cc $flags -shared -fPIC -o libtiny.so tiny.c" >> "$dir/CMD"
    (cd "$dir" && $cc $flags -shared -fPIC -o libtiny.so tiny.c)
    libs="-L. -ltiny -Wl,-rpath,'\$ORIGIN'"
  fi
  echo "$cc $flags -o prog $src $libs -pthread" >> "$dir/CMD"
  (cd "$dir" && eval $cc $flags -o prog "$src" $libs -pthread)
  echo "$GP collect app $opts -o test.1.er ./prog" >> "$dir/CMD"
  (cd "$dir" && "$GP" collect app $opts -o test.1.er ./prog > collect.log 2>&1) || true
  display "$dir" test.1.er header functions calltree
  empty_archives "$dir"
  rm -f "$dir/prog" "$dir/libtiny.so"
  rm -rf "${HERE:?}/$case"; cp -r "$dir" "$HERE/$case"
}

record cxx_names g++ "-g -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls" names.cc
record many_threads gcc "-g -O1 -fno-omit-frame-pointer" threads.c
record plt_leaf gcc "-g -O1 -fno-omit-frame-pointer" plt.c "-p on"

for case in deepstack killed; do
  [ -f "$OUT/$case/calltree.txt" ] || display "$BUILD/$case" test.1.er calltree
  [ -f "$OUT/$case/calltree.txt" ] || cp "$BUILD/$case/calltree.txt" "$OUT/$case/"
  grep -q -- "-calltree" "$OUT/$case/DISPLAY_CMDS" || echo "$GP display text -calltree test.1.er > calltree.txt" >> "$OUT/$case/DISPLAY_CMDS"
  rm -rf "${HERE:?}/$case"; mkdir -p "$HERE/$case"
  (cd "$OUT/$case" && cp -r CMD DISPLAY_CMDS collect.log header.txt functions.txt calltree.txt ./*.c test.1.er "$HERE/$case/")
  [ -f "$OUT/$case/prog" ] && cp "$OUT/$case/prog" "$HERE/$case/"
  empty_archives "$HERE/$case"
  cat "$OUT/$case/REMOVED_ARCHIVES.txt" >> "$HERE/$case/REMOVED_ARCHIVES.txt"
done

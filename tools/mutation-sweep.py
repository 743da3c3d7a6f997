#!/usr/bin/env python3
"""Mutation sweep: runs every example of the workspace on real files cut off, bit-flipped and
with length fields blown up to 0xFFFFFFFF, the way a hostile or damaged file would reach a
user, under an address-space limit, and fails on what a user must never see:

* a signal or abort (e.g. `memory allocation of 4294967304 bytes failed`), a panic
  (exit 101 or `panicked` on stderr), an exit status other than 0, 1 and 3;
* a run taking more than --time-factor x the intact file's time (with a floor, --min-time);
* with --mem-factor, a peak RSS above that factor x the intact run's (reported either way).

The table EXAMPLES lists each example with the kind of file it reads and its arguments; KINDS
lists the real files of each kind. Adding an example (an experiment, pointsto, jvmpi or iprof
tool) is one line in EXAMPLES (and one in KINDS for a new kind).

    tools/mutation-sweep.py --quick          # CI: small fixtures, a few hundred runs, < 2 min
    tools/mutation-sweep.py                  # every file of the table, 200 mutations each
    tools/mutation-sweep.py --kind hprof --flips 500 --fixtures /work/shared/fixtures
    tools/mutation-sweep.py --bin-dir OTHER/target/release/examples   # measure another build

Exit status 0 when no run failed, 1 otherwise. A table goes to stdout, a row per example and
file: how many runs, their exit statuses (status:count; -N is signal N, -999 a timeout), the
largest time and peak-RSS ratios to the intact run, and how many truncations exited 0 (a cut
at a record boundary of an unsegmented dump is a valid shorter file; otherwise data loss).
"""

import argparse
import glob
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Example:
    package: str  # the package name in Cargo.toml
    name: str  # the example's name
    kind: str  # the kind of file it reads (a key of KINDS)
    args: list  # arguments; "{in}" is the input file, "{out}" a scratch output path
    ok_codes: tuple = (0, 1, 3)  # exit statuses a user may see


# Every example that reads a file, one line each.
EXAMPLES = [
    Example("hprof-format", "histogram", "hprof", ["{in}"]),
    Example("hprof-format", "histogram", "hprof", ["--threads", "2", "{in}"]),
    Example("hprof-format", "rewrite", "hprof", ["{in}", "{out}"]),
    Example("hprof-format", "dominators", "hprof", ["{in}"]),
    Example("hprof-format", "heap-diff", "hprof", ["{in}", "{in}"]),
    Example("hprof-format", "heap-diff", "hprof", ["--shallow-only", "{in}", "{in}"]),
    Example("hprof-format", "leak-suspects", "hprof", ["{in}"]),
    Example("hprof-format", "leak-suspects", "hprof", ["--duplicate-strings", "{in}"]),
    Example("hprof-format", "hprof-txt", "hprof-ascii", ["{in}"]),
    Example("jvmprof-columnar", "to-parquet", "hprof", ["--force", "{in}", "{out}"]),
    Example("jvmprof-columnar", "to-parquet", "jfr", ["--force", "{in}", "{out}"]),
    Example("pointsto", "calltree", "pointsto-calltree", ["{in}"]),
    Example("pointsto", "objecttree", "pointsto-objecttree", ["{in}"]),
    Example("iprof", "iprof-stats", "iprof", ["{in}"]),
    Example("callctx", "ctx", "callctx", ["{in}"]),
    Example("jfr-format", "jfr-summary", "jfr", ["{in}"]),
    Example("jfr-format", "jfr-print", "jfr", ["{in}"]),
    Example("jfr-format", "jfr-folded", "jfr", ["--event", "jdk.ExecutionSample", "{in}"]),
    Example("jvmpi-types", "jvmpi-dump", "jvmpi-heap-l0-32le",
            ["--kind", "heap", "--level", "0", "--id-size", "4", "--id-order", "little", "{in}"]),
]

# The real files of each kind (globs relative to the repository root), and the largest file
# --quick uses.
KINDS = {
    "hprof": ["hprof/tests/data/binary/*.hprof"],
    "hprof-ascii": ["hprof/tests/data/ascii/*.hprof.txt"],
    "pointsto-calltree": ["pointsto/tests/data/generated/call_tree_*.txt",
                          "pointsto/tests/data/EXCERPT_*call_tree*.txt"],
    "pointsto-objecttree": ["pointsto/tests/data/generated/object_tree_*.txt"],
    "iprof": ["iprof/tests/data/*.iprof", "iprof/tests/data/*.iprof.gz",
              "iprof/tests/data/*.iprof.xz"],
    "callctx": ["callctx/tests/data/contexts-*.txt", "callctx/tests/data/demo.txt"],
    "jvmpi-heap-l0-32le": ["jvmpi-types/tests/data/heap-l0-hs32le.bin"],
    "jfr": ["jfr/tests/data/cpu-default.jfr", "jfr/tests/data/park-profile.jfr"],
}
# Extra files of each kind under --fixtures DIR (e.g. /work/shared/fixtures).
FIXTURE_GLOBS = {
    "hprof": ["hprof-bin/*.hprof", "hprof-android/*.hprof"],
    "hprof-ascii": ["hprof-ascii/*.hprof.txt"],
}
QUICK_MAX_BYTES = 800_000


# ---- length fields of each kind: offsets of u4 lengths and counts to blow up -------------

def hprof_length_fields(data):
    """Offsets of every record length and of every sub-record length or count field of a
    binary HPROF dump, as far as its framing can be walked."""
    nul = data.find(b"\0")
    if nul < 0 or nul + 13 > len(data):
        return []
    (id_size,) = struct.unpack_from(">I", data, nul + 1)
    if id_size not in (4, 8):
        return []
    out = []
    pos = nul + 13
    while pos + 9 <= len(data):
        tag = data[pos]
        (length,) = struct.unpack_from(">I", data, pos + 5)
        out.append(("record", pos + 5))
        body = pos + 9
        end = body + length
        if end > len(data):
            break
        if tag in (0x0C, 0x1C):
            out.extend(("sub-record", o) for o in sub_record_fields(data, body, end, id_size))
        pos = end
    return out


def sub_record_fields(data, pos, end, idn):
    """Offsets of the count/length fields of the sub-records in data[pos:end]."""
    type_size = {2: idn, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
    fixed = {0xFF: idn, 0x01: 2 * idn, 0x02: idn + 8, 0x03: idn + 8, 0x04: idn + 4,
             0x05: idn, 0x06: idn + 4, 0x07: idn, 0x08: idn + 8, 0x89: idn, 0x8A: idn,
             0x8B: idn, 0x8C: idn, 0x8D: idn, 0x8E: idn + 8, 0x90: idn, 0xFE: 4 + idn}
    out = []
    try:
        while pos < end:
            t = data[pos]
            pos += 1
            if t in fixed:
                pos += fixed[t]
            elif t == 0x21:  # INSTANCE_DUMP: id, u4, id, u4 n, n bytes
                at = pos + 2 * idn + 4
                out.append(at)
                (n,) = struct.unpack_from(">I", data, at)
                pos = at + 4 + n
            elif t == 0x22:  # OBJ_ARRAY_DUMP: id, u4, u4 n, id, n ids
                at = pos + idn + 4
                out.append(at)
                (n,) = struct.unpack_from(">I", data, at)
                pos = at + 4 + idn + n * idn
            elif t in (0x23, 0xC3):  # PRIM_ARRAY_DUMP / NODATA: id, u4, u4 n, u1 type, data
                at = pos + idn + 4
                out.append(at)
                (n,) = struct.unpack_from(">I", data, at)
                ty = data[at + 4]
                pos = at + 5 + (n * type_size.get(ty, 1) if t == 0x23 else 0)
            elif t == 0x20:  # CLASS_DUMP
                pos += 7 * idn + 4 + 4
                (cp,) = struct.unpack_from(">H", data, pos)
                pos += 2
                for _ in range(cp):
                    ty = data[pos + 2]
                    pos += 3 + type_size[ty]
                (st,) = struct.unpack_from(">H", data, pos)
                pos += 2
                for _ in range(st):
                    ty = data[pos + idn]
                    pos += idn + 1 + type_size[ty]
                (fi,) = struct.unpack_from(">H", data, pos)
                pos += 2 + fi * (idn + 1)
            else:
                break
    except (struct.error, IndexError, KeyError):
        pass
    return out


LENGTH_FIELDS = {"hprof": hprof_length_fields}


# ---- mutations -----------------------------------------------------------------------------

@dataclass
class Mutation:
    what: str  # e.g. "cut 1234", "flip 171650^0x40", "record length @ 5678"
    data: bytes
    cut: bool = False


def mutations(kind, data, rng, n_cuts, n_flips, n_lengths):
    size = len(data)
    cuts = {0, 1, size - 1, size - 9, size // 2}
    while len(cuts) < min(n_cuts, size):
        cuts.add(rng.randrange(size))
    for c in sorted(x for x in cuts if 0 <= x < size):
        yield Mutation(f"cut {c}", data[:c], cut=True)
    for _ in range(n_flips):
        at, bit = rng.randrange(size), 1 << rng.randrange(8)
        m = bytearray(data)
        m[at] ^= bit
        yield Mutation(f"flip {at}^0x{bit:02x}", bytes(m))
    fields = LENGTH_FIELDS.get(kind, lambda _: [])(data)
    if len(fields) > n_lengths:
        # Every record-length field first when sampling, then sub-records.
        fields = sorted(rng.sample(fields, n_lengths))
    for what, at in fields:
        m = bytearray(data)
        m[at:at + 4] = b"\xff\xff\xff\xff"
        yield Mutation(f"{what} length @ {at} = 0xFFFFFFFF", bytes(m))


# ---- running ---------------------------------------------------------------------------------

@dataclass
class Run:
    code: int
    seconds: float
    max_rss_kib: int
    stderr: str


def run_measured(binary, args, limit_bytes, timeout):
    """Runs `binary args` under the address-space limit, killed after `timeout` seconds; its
    exit status (negative: a signal; -999: the timeout), time, peak RSS and stderr."""
    start = time.monotonic()
    err_file = tempfile.TemporaryFile()

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    p = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=err_file, preexec_fn=limits)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            p.kill()
            pid, status, usage = os.wait4(p.pid, 0)
            err_file.seek(0)
            return Run(-999, time.monotonic() - start, usage.ru_maxrss,
                       err_file.read().decode(errors="replace"))
        time.sleep(0.002)
    p.returncode = 0  # keep Popen from waiting again
    elapsed = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    err_file.seek(0)
    return Run(code, elapsed, usage.ru_maxrss, err_file.read().decode(errors="replace"))


def verdict(ex, r, base, args):
    """Why the run fails, or None."""
    if r.code == -999:
        return f"timeout (> {args.time_factor}x intact)"
    if r.code < 0:
        return f"killed by signal {-r.code}"
    if "memory allocation of" in r.stderr:
        return "allocation failure: " + r.stderr.strip().splitlines()[-1][:120]
    if r.code == 101 or "panicked" in r.stderr:
        return "panic: " + next((l for l in r.stderr.splitlines() if "panicked" in l), "")[:160]
    if r.code not in ex.ok_codes:
        return f"exit {r.code}"
    if r.seconds > max(args.time_factor * base.seconds, args.min_time):
        return f"slow: {r.seconds:.2f}s vs {base.seconds:.3f}s intact"
    if args.mem_factor and r.max_rss_kib > args.mem_factor * max(base.max_rss_kib, 1):
        return f"memory: {r.max_rss_kib} KiB vs {base.max_rss_kib} KiB intact"
    return None


def files_of(kind, args):
    out = []
    for g in KINDS.get(kind, []):
        out.extend(sorted(glob.glob(os.path.join(ROOT, g))))
    if args.fixtures:
        for g in FIXTURE_GLOBS.get(kind, []):
            out.extend(sorted(glob.glob(os.path.join(args.fixtures, g))))
    seen, unique = set(), []
    for f in out:
        key = (os.path.basename(f), os.path.getsize(f))
        if key not in seen:
            seen.add(key)
            unique.append(f)
    if args.quick:
        unique = [f for f in unique if os.path.getsize(f) <= QUICK_MAX_BYTES]
    return unique


def build(examples, args):
    if args.bin_dir:
        return args.bin_dir
    for package in sorted({e.package for e in examples}):
        names = sorted({e.name for e in examples if e.package == package})
        # Every feature: some examples need one that is off by default (fs).
        cmd = ["cargo", "build", "--release", "-q", "-p", package, "--all-features"]
        for n in names:
            cmd += ["--example", n]
        subprocess.run(cmd, cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "examples")


def print_row(row, header):
    """One line of the summary table (printed as each example finishes a file)."""
    if header:
        print(f"{'example':<28} {'file':<44} {'runs':>5} {'exit codes':<28} "
              f"{'max t×':>7} {'max mem×':>8} {'cut→0':>6}")
    ex, path, n, codes, wt, wm, sc, base = row
    label = " ".join([ex.name] + [a for a in ex.args if a.startswith("-") or a.isdigit()])
    cs = " ".join(f"{c}:{k}" for c, k in sorted(codes.items()))
    print(f"{label:<28} {os.path.basename(path)[:44]:<44} {n:>5} {cs:<28} "
          f"{wt:>7.1f} {wm:>8.1f} {sc:>6}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI mode: small files, fewer mutations")
    ap.add_argument("--kind", action="append", help="only examples reading this kind of file")
    ap.add_argument("--example", action="append", help="only this example (by name)")
    ap.add_argument("--fixtures", help="also the real files under this folder (FIXTURE_GLOBS)")
    ap.add_argument("--bin-dir", help="use the example binaries in this folder (no build)")
    ap.add_argument("--cuts", type=int, help="truncations per file (default 40, quick 12)")
    ap.add_argument("--flips", type=int, help="single bit flips per file (default 200, quick 30)")
    ap.add_argument("--lengths", type=int,
                    help="length fields set to 0xFFFFFFFF per file (default 200, quick 25)")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--limit-mib", type=int, default=1024, help="address-space limit (MiB)")
    ap.add_argument("--time-factor", type=float, default=10.0)
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="runs faster than this (s) are never slow")
    ap.add_argument("--mem-factor", type=float, default=0.0,
                    help="fail above this factor x the intact run's peak RSS (0: report only)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.cuts = args.cuts or (12 if args.quick else 40)
    args.flips = args.flips or (30 if args.quick else 200)
    args.lengths = args.lengths or (25 if args.quick else 200)

    examples = [e for e in EXAMPLES
                if (not args.kind or e.kind in args.kind)
                and (not args.example or e.name in args.example)]
    bin_dir = build(examples, args)
    limit = args.limit_mib << 20
    scratch = tempfile.mkdtemp(prefix="mutation-sweep-")
    failures, rows, started = [], [], time.monotonic()
    try:
        for kind in sorted({e.kind for e in examples}):
            for path in files_of(kind, args):
                data = open(path, "rb").read()
                rng = random.Random(f"{args.seed}:{os.path.basename(path)}")
                muts = list(mutations(kind, data, rng, args.cuts, args.flips, args.lengths))
                for ex in (e for e in examples if e.kind == kind):
                    binary = os.path.join(bin_dir, ex.name)
                    out = os.path.join(scratch, f"out-{ex.name}")
                    argv = lambda inp, o: [a.replace("{in}", inp).replace("{out}", o)
                                           for a in ex.args]
                    base = run_measured(binary, argv(path, out + "-intact"), limit, 600)
                    if base.code != 0:
                        failures.append((ex, path, "intact file", f"exit {base.code}: "
                                         + base.stderr.strip()[:200]))
                    timeout = max(args.time_factor * base.seconds, args.min_time) + 1

                    def one(i_m):
                        i, m = i_m
                        inp = os.path.join(scratch, f"m{i}-{os.path.basename(path)}")
                        with open(inp, "wb") as f:
                            f.write(m.data)
                        r = run_measured(binary, argv(inp, f"{out}-{i}"), limit, timeout)
                        os.unlink(inp)
                        if os.path.isdir(f"{out}-{i}"):
                            shutil.rmtree(f"{out}-{i}", ignore_errors=True)
                        elif os.path.exists(f"{out}-{i}"):
                            os.unlink(f"{out}-{i}")
                        return m, r

                    with ThreadPoolExecutor(args.jobs) as pool:
                        results = list(pool.map(one, enumerate(muts)))
                    codes, worst_t, worst_m, silent_cuts = {}, 0.0, 0, 0
                    for m, r in results:
                        codes[r.code] = codes.get(r.code, 0) + 1
                        worst_t = max(worst_t, r.seconds / max(base.seconds, 1e-3))
                        worst_m = max(worst_m, r.max_rss_kib / max(base.max_rss_kib, 1))
                        if m.cut and r.code == 0:
                            silent_cuts += 1
                        why = verdict(ex, r, base, args)
                        if why:
                            failures.append((ex, path, m.what, why))
                        if args.verbose:
                            print(f"  {ex.name} {m.what}: exit {r.code} {r.seconds:.3f}s "
                                  f"{r.max_rss_kib} KiB", file=sys.stderr)
                    rows.append((ex, path, len(muts), codes, worst_t, worst_m, silent_cuts,
                                 base))
                    print_row(rows[-1], header=len(rows) == 1)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    total = sum(r[2] for r in rows)
    print(f"\n{total} runs in {time.monotonic() - started:.0f} s; "
          f"{len(failures)} failure(s) (address space {args.limit_mib} MiB, "
          f"time > {args.time_factor:g}x intact and > {args.min_time:g} s)")
    for ex, path, what, why in failures:
        print(f"FAIL {ex.name} {' '.join(ex.args)} {os.path.basename(path)} [{what}]: {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

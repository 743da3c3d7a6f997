#!/usr/bin/env python3
"""Packs gprofng experiments into single fuzz inputs for the targets that open whole experiments
(experiment_open, columnar_experiment); the format is in fuzz_targets/bundle.rs.

    python3 fuzz/bundle.py OUT_DIR EXPERIMENT.er...

Each experiment gives one input (and one more per pair of descendants), at most 8192 bytes:
log.xml first, then map.xml, data.frameinfo, the data files, overview, dyntext and the small
text files, each cut (text at a line end) to fit; padding (trailing NULs) is dropped. Load
objects in archives/ are left out (the ELF reader has its own target).
"""
import hashlib
import os
import sys

MARKER = b"@@FILE "
BUDGET = 8192
TEXT = {"log.xml", "map.xml", "labels.xml", "archive.log", "notes", "ifreq", "warnings.xml"}
# (file, cap): the order files are added in while the budget lasts.
ORDER = [
    ("log.xml", 3000),
    ("map.xml", 1200),
    ("data.frameinfo", 900),
    ("profile", 700),
    ("heaptrace", 700),
    ("synctrace", 700),
    ("iotrace", 700),
    ("hwcounters", 700),
    ("jclasses", 700),
    ("overview", 400),
    ("dyntext", 400),
    ("archive.log", 400),
    ("labels.xml", 400),
    ("notes", 200),
    ("ifreq", 200),
]


def clip(name, data, cap):
    data = data.rstrip(b"\0")
    if name in TEXT:
        data = data.rstrip()
        if len(data) > cap:
            cut = data.rfind(b"\n", 0, cap)
            data = data[: cut if cut > 0 else cap]
    return data[:cap]


def add(out, path, data, budget):
    """Appends one file if any of it fits; returns the budget left."""
    if MARKER in data:
        return budget
    head = b"" if path == "log.xml" and not out else MARKER + path.encode() + b"\n"
    room = budget - len(head)
    if room < 32:
        return budget
    out.append(head + data[:room])
    return budget - len(out[-1])


def pack(exp, prefix="", budget=BUDGET, out=None, caps=1.0):
    out = [] if out is None else out
    for name, cap in ORDER:
        path = os.path.join(exp, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = clip(name, f.read(), int(cap * caps))
        if data or name == "data.frameinfo":
            budget = add(out, prefix + name, data, budget)
    jdyn = os.path.join(exp, "jdynclasses")
    for root, _, files in sorted(os.walk(jdyn)):
        for f in sorted(files):
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                data = fh.read(128)
            budget = add(out, prefix + os.path.relpath(p, exp), data, budget)
    return out, budget


def main():
    out_dir, exps = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    for exp in exps:
        seeds = [pack(exp)[0]]
        desc = sorted(d for d in os.listdir(exp) if d.startswith("_") and d.endswith(".er"))
        for i in range(0, len(desc), 2):
            parts, budget = pack(exp, caps=0.3)
            for d in desc[i : i + 2]:
                parts, budget = pack(os.path.join(exp, d), d + "/", budget, parts, caps=0.3)
            seeds.append(parts)
        for parts in seeds:
            data = b"".join(parts)
            assert len(data) <= BUDGET, (exp, len(data))
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(out_dir, name), "wb") as f:
                f.write(data)
            n += 1
    print(f"{n} experiment inputs in {out_dir}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Builds the JVMPI dump-buffer fixtures in this folder from a real heap.

No real JVMPI dump buffer is public (see README.md here), so these buffers are written the way
the VMs' own writers lay them out (HotSpot 5.0 prims/jvmpi.cpp as documented in
shared/formats/jvmpi.md section 5-9), filled with the real object graph of a real heap: the
HEAP DUMP section of `optimization_java.hprof.txt` (hprof ASCII, JDK 8, heap=all, from the
public repository Morok1/optimization; copy in shared/fixtures/hprof-ascii). Roots, classes
(super, loader, signers, protection domain, reference statics, constant-pool class/string
entries), instances (class, size, non-null reference fields), object arrays (length, non-null
elements) and primitive arrays (type, length) are the real ones. What the ASCII report does not
keep is filled deterministically and documented in README.md.

This is an independent writer (Python, not the crate's encoder), so decoding its output checks
the Rust decoder against a second reading of the layout.

Usage: python3 make_fixtures.py PATH/TO/optimization_java.hprof.txt
"""
import json
import re
import struct
import sys

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."

TYPE = {"boolean": 4, "char": 5, "float": 6, "double": 7, "byte": 8, "short": 9, "int": 10, "long": 11}
ESIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
ROOT_UNKNOWN, JNI_GLOBAL, JNI_LOCAL, JAVA_FRAME, NATIVE_STACK, STICKY, THREAD_BLOCK, MONITOR_USED = (
    0xFF, 1, 2, 3, 4, 5, 6, 7)
CLASS_DUMP, INSTANCE_DUMP, OBJ_ARRAY_DUMP, PRIM_ARRAY_DUMP = 0x20, 0x21, 0x22, 0x23


def parse(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("HEAP DUMP BEGIN"))
    end = next(i for i, l in enumerate(lines) if l.startswith("HEAP DUMP END"))
    roots, objs, cur = [], [], None
    for l in lines[start + 1:end]:
        if l.startswith("ROOT "):
            m = re.match(r"ROOT (\w+) \(kind=<([^>]*)>(.*)\)", l)
            attrs = dict(re.findall(r"(\w+)=(\w+)", m.group(3)))
            roots.append((int(m.group(1), 16), m.group(2), attrs))
            cur = None
        elif l.startswith(("CLS ", "OBJ ", "ARR ")):
            kind, rest = l[:3], l[4:]
            oid = int(rest.split()[0], 16)
            attrs = dict(re.findall(r"(\w+(?: type)?)=([^,)]*)", rest))
            cur = {"kind": kind, "id": oid, "attrs": attrs, "fields": []}
            objs.append(cur)
        elif l.startswith("\t") and cur is not None:
            parts = l.strip().split()
            cur["fields"].append((" ".join(parts[:-1]), int(parts[-1], 16)))
    return roots, objs


class W:
    def __init__(self, idsize, order, void_order):
        self.b = bytearray()
        self.idsize, self.order, self.void_order = idsize, order, void_order

    def u1(self, v): self.b += struct.pack(">B", v)
    def u2(self, v): self.b += struct.pack(">H", v)
    def u4(self, v): self.b += struct.pack(">I", v & 0xFFFFFFFF)
    def raw(self, bs): self.b += bs

    def _id(self, v, order):
        fmt = ("<" if order == "little" else ">") + ("I" if self.idsize == 4 else "Q")
        self.b += struct.pack(fmt, v)

    def id(self, v): self._id(v, self.order)
    def void(self, v): self._id(v, self.void_order)


def build(path):
    roots, objs = parse(path)
    classes = {o["id"]: o for o in objs if o["kind"] == "CLS"}
    by_name = {o["attrs"]["name"]: o["id"] for o in classes.values()}
    inst_size = {}
    for o in objs:
        if o["kind"] == "OBJ":
            cid = int(o["attrs"]["class"].rsplit("@", 1)[1], 16)
            inst_size.setdefault(cid, int(o["attrs"]["sz"]))
    return roots, objs, classes, by_name, inst_size, None


def env_of(serial, idsize):
    # A JNIEnv* per thread serial: 32-bit HotSpot on Linux puts JavaThreads in the C heap.
    base = 0x0806_A0E4 + (serial - 200000) * 0x6E8 if serial >= 200000 else 0x0806_A0E4
    return base if idsize == 4 else 0x0000_7F3A_4C00_0000 + base


def wid(v, idsize):
    """Widens a 32-bit heap id to a plausible LP64 address."""
    return v if idsize == 4 or v == 0 else 0x0000_0007_0000_0000 + (v - 0x5000_0000) * 8 + 0x0010_0000


def heap_records(data, idsize, order, void_order, level):
    roots, objs, classes, by_name, inst_size, _ = data
    w = W(idsize, order, void_order)
    I = lambda v: wid(v, idsize)
    # HotSpot 5.0 root order: per thread (Java frames, JNI locals, native stack, thread block),
    # then JNI globals, sticky classes, used monitors, unknown; each list sorted and de-duplicated.
    per_thread = {}
    glob, sticky, mon, unk = set(), set(), set(), set()
    for oid, kind, a in roots:
        if kind == "Java stack":
            per_thread.setdefault(int(a["thread"]), []).append((JAVA_FRAME, oid, int(a["frame"])))
        elif kind == "JNI local ref":
            per_thread.setdefault(int(a["thread"]), []).append((JNI_LOCAL, oid, int(a["frame"])))
        elif kind == "thread block":
            per_thread.setdefault(int(a["thread"]), []).append((THREAD_BLOCK, oid, 0))
        elif kind == "JNI global ref":
            glob.add((oid, int(a["id"], 16)))
        elif kind == "system class":
            sticky.add(oid)
        elif kind == "busy monitor":
            mon.add(oid)
        elif kind == "unknown":
            unk.add(oid)
        # kind=<thread> is hprof's own HPROF_GC_ROOT_THREAD_OBJ, synthesised from traces: not JVMPI.
    counts = {}
    def count(tag): counts[tag] = counts.get(tag, 0) + 1
    if level > 0:
        for t in sorted(per_thread):
            env = env_of(t, idsize)
            for tag, oid, frame in sorted(set(per_thread[t]), key=lambda r: (r[0] == THREAD_BLOCK, r[2], r[0], r[1])):
                w.u1(tag); w.id(I(oid)); w.id(env)
                if tag != THREAD_BLOCK:
                    w.u4(frame)
                count(tag)
        for oid, gid in sorted(glob):
            w.u1(JNI_GLOBAL); w.id(I(oid))
            handle = (0x0806_5F00 + 4 * gid) if idsize == 4 else (0x0000_7F3A_4C01_0000 + 8 * gid)
            w.void(handle)  # HotSpot writes the jobject through its u4/u8 path (big-endian)
            count(JNI_GLOBAL)
        for tag, s in ((STICKY, sticky), (MONITOR_USED, mon), (ROOT_UNKNOWN, unk)):
            for oid in sorted(s):
                w.u1(tag); w.id(I(oid)); count(tag)
    layouts = {}
    level0 = {}
    for o in objs:
        a, f = o["attrs"], o["fields"]
        if o["kind"] == "CLS":
            refs = {n: v for n, v in f}
            statics = [(n[len("static "):], v) for n, v in f if n.startswith("static ")]
            cp = [(int(n.split()[-1]), v) for n, v in f if n.startswith("constant pool entry")]
            layouts[o["id"]] = {"id": I(o["id"]), "interfaces": 0, "statics": ["Ljava/lang/Object;"] * len(statics)}
            if level == 0:
                w.u1(0); w.id(I(o["id"])); level0[0] = level0.get(0, 0) + 1
                continue
            w.u1(CLASS_DUMP); w.id(I(o["id"]))
            for k in ("super", "loader", "signers", "domain"):
                w.id(I(refs.get(k, 0)))
            w.id(0)    # class name String: NULL (HotSpot writes it only when interned)
            w.void(0)  # reserved
            w.u4(inst_size.get(o["id"], 16))
            w.u2(len(cp))
            for idx, v in cp:
                w.u2(idx); w.u1(2); w.id(I(v))  # CVM-style resolved String/Class entries
            for _, v in statics:
                w.id(I(v))
            count(CLASS_DUMP)
        elif o["kind"] == "OBJ":
            cid = int(a["class"].rsplit("@", 1)[1], 16)
            if level == 0:
                w.u1(0); w.id(I(o["id"])); level0[0] = level0.get(0, 0) + 1
                continue
            refs = [v for _, v in f]
            prim = max(0, int(a["sz"]) - 12 - 4 * len(refs)) if level == 2 else 0
            w.u1(INSTANCE_DUMP); w.id(I(o["id"])); w.id(I(cid)); w.u4(len(refs) * idsize + prim)
            for v in refs:
                w.id(I(v))
            w.raw(bytes((o["id"] + k) & 0xFF for k in range(prim)))
            count(INSTANCE_DUMP)
        else:
            n = int(a["nelems"])
            et = a["elem type"]
            if et.endswith("[]") and et[:-2] in TYPE:
                ty = TYPE[et[:-2]]
                if level == 0:
                    w.u1(ty); w.id(I(o["id"])); level0[ty] = level0.get(ty, 0) + 1
                    continue
                w.u1(PRIM_ARRAY_DUMP); w.id(I(o["id"])); w.u4(n); w.u1(ty)
                if level == 2:
                    w.raw(bytes((o["id"] * 31 + k) & 0xFF for k in range(n * ESIZE[ty])))
                count(PRIM_ARRAY_DUMP)
            else:
                if level == 0:
                    w.u1(2); w.id(I(o["id"])); level0[2] = level0.get(2, 0) + 1
                    continue
                name, _, _ = et.rpartition("@")
                elem_class = by_name.get(name[:-2], 0) if name.endswith("[]") else 0
                elems = [0] * n
                for k, v in f:
                    elems[int(k.strip("[]"))] = v
                w.u1(OBJ_ARRAY_DUMP); w.id(I(o["id"])); w.u4(n); w.id(I(elem_class))
                for v in elems:
                    w.id(I(v))
                count(OBJ_ARRAY_DUMP)
    return bytes(w.b), counts, level0, layouts


NAMES = {0xFF: "JVMPI_GC_ROOT_UNKNOWN", 1: "JVMPI_GC_ROOT_JNI_GLOBAL", 2: "JVMPI_GC_ROOT_JNI_LOCAL",
         3: "JVMPI_GC_ROOT_JAVA_FRAME", 4: "JVMPI_GC_ROOT_NATIVE_STACK", 5: "JVMPI_GC_ROOT_STICKY_CLASS",
         6: "JVMPI_GC_ROOT_THREAD_BLOCK", 7: "JVMPI_GC_ROOT_MONITOR_USED", 0x20: "JVMPI_GC_CLASS_DUMP",
         0x21: "JVMPI_GC_INSTANCE_DUMP", 0x22: "JVMPI_GC_OBJ_ARRAY_DUMP", 0x23: "JVMPI_GC_PRIM_ARRAY_DUMP"}
TNAMES = {0: "JVMPI_NORMAL_OBJECT", 2: "JVMPI_CLASS", 4: "JVMPI_BOOLEAN", 5: "JVMPI_CHAR", 6: "JVMPI_FLOAT",
          7: "JVMPI_DOUBLE", 8: "JVMPI_BYTE", 9: "JVMPI_SHORT", 10: "JVMPI_INT", 11: "JVMPI_LONG"}


def monitor_dump(idsize, order):
    """HotSpot-style monitor dump of the JDK 1.3/1.4 hprof session in SimNet_java.hprof.txt:
    its threads (thread object ids from its THREAD START lines), the two reference-handling
    locks every VM has, and hprof's own raw monitors (owned by the HPROF CPU profiler thread)."""
    w = W(idsize, order, order)
    threads = {"Finalizer": 0x6F14B0, "Reference Handler": 0x6F1350, "main": 0x6F1260,
               "HPROF CPU profiler": 0x6F2160, "Signal Dispatcher": 0x6F68A0, "CompileThread0": 0x6F6250,
               "Thread-0": 0x71EEB0}
    env = {n: (0x0002_A1E8 + k * 0x2E0 if idsize == 4 else 0x0000_0001_0012_A1E8 + k * 0x5C0)
           for k, n in enumerate(threads)}
    wid8 = (lambda v: v) if idsize == 4 else (lambda v: 0x0000_0007_0000_0000 + v * 8)
    recs = []
    # Java monitors: java.lang.ref.Reference$Lock (Reference Handler waits on it),
    # java.lang.ref.ReferenceQueue$Lock (Finalizer waits on it), main's object waited on by Thread-0.
    for obj, owner, entry, enter, notify in (
        (0x6F13A8, None, 1, [], ["Reference Handler"]),
        (0x6F1538, None, 1, [], ["Finalizer"]),
        (0x71EF10, "main", 2, ["Thread-0"], []),
    ):
        w.u1(1); w.id(wid8(obj)); w.id(env[owner] if owner else 0); w.u4(entry)
        w.u4(len(enter)); [w.id(env[t]) for t in enter]
        w.u4(len(notify)); [w.id(env[t]) for t in notify]
        recs.append("JVMPI_MONITOR_JAVA")
    # Raw monitors created by hprof (name pointers into the agent's data segment).
    for k, (owner, enter) in enumerate(((None, []), ("HPROF CPU profiler", ["main"]), (None, []))):
        name = (0x4001_2A40 + 0x20 * k) if idsize == 4 else (0x0000_7F3A_4E01_2A40 + 0x20 * k)
        rid = (0x0809_1C28 + 0x48 * k) if idsize == 4 else (0x0000_7F3A_4C02_1C28 + 0x58 * k)
        w.u1(2); w.id(name); w.id(rid); w.id(env[owner] if owner else 0); w.u4(1 if owner else 0)
        w.u4(len(enter)); [w.id(env[t]) for t in enter]
        w.u4(0)
        recs.append("JVMPI_MONITOR_RAW")
    return bytes(w.b), recs


def expected(names_counts):
    out = "".join(f"{n}\t{c}\n" for n, c in names_counts)
    return out + f"total\t{sum(c for _, c in names_counts)}\n"


def main():
    data = build(sys.argv[1])
    for idsize, order, void_order, tag in ((4, "little", "big", "hs32le"), (8, "big", "big", "sparc64be")):
        for level in (0, 1, 2):
            if idsize == 8 and level == 2:
                continue  # keeps tests/data small; level 2 is covered at I=4
            buf, counts, level0, layouts = heap_records(data, idsize, order, void_order, level)
            open(f"{HERE}/heap-l{level}-{tag}.bin", "wb").write(buf)
            if level == 0:
                exp = expected([(TNAMES[t], level0[t]) for t in level0])
            else:
                exp = expected([(NAMES[t], counts[t]) for t in counts])
            open(f"{HERE}/heap-l{level}-{tag}.expected", "w").write(exp)
        json.dump({"classes": list(layouts.values())}, open(f"{HERE}/heap-classes-{tag}.json", "w"), indent=0)
    # Object dumps: one record of each kind, cut out of the level-2 heap dump.
    buf, _, _, _ = heap_records(data, 4, "little", "big", 2)
    pos, seen = 0, set()
    rd = lambda p, n: buf[p:p + n]
    u4 = lambda p: struct.unpack(">I", rd(p, 4))[0]
    u2 = lambda p: struct.unpack(">H", rd(p, 2))[0]
    layouts = {json_c["id"]: json_c for json_c in heap_records(data, 4, "little", "big", 2)[3].values()}
    while pos < len(buf):
        tag = buf[pos]
        if tag in (JNI_LOCAL, JAVA_FRAME):
            size = 1 + 8 + 4
        elif tag in (NATIVE_STACK, THREAD_BLOCK, JNI_GLOBAL):
            size = 1 + 8
        elif tag in (STICKY, MONITOR_USED, ROOT_UNKNOWN):
            size = 1 + 4
        elif tag == CLASS_DUMP:
            cid = struct.unpack("<I", rd(pos + 1, 4))[0]
            p = pos + 1 + 28 + 4
            n = u2(p); p += 2 + n * 7
            size = p + 4 * len(layouts[cid]["statics"]) - pos
        elif tag == INSTANCE_DUMP:
            size = 1 + 8 + 4 + u4(pos + 9)
        elif tag == OBJ_ARRAY_DUMP:
            size = 1 + 4 + 4 + 4 + 4 * u4(pos + 5)
        else:
            size = 1 + 4 + 4 + 1 + u4(pos + 5) * ESIZE[buf[pos + 9]]
        name = {CLASS_DUMP: "class", INSTANCE_DUMP: "instance", OBJ_ARRAY_DUMP: "objarray",
                PRIM_ARRAY_DUMP: "primarray"}.get(tag)
        # The first record of each kind with some content (non-empty arrays, statics, fields).
        if name and name not in seen and size > 24:
            seen.add(name)
            open(f"{HERE}/object-{name}-hs32le.bin", "wb").write(buf[pos:pos + size])
            open(f"{HERE}/object-{name}-hs32le.expected", "w").write(expected([(NAMES[tag], 1)]))
        pos += size
    for idsize, order, tag in ((4, "little", "hs32le"), (8, "big", "sparc64be")):
        buf, recs = monitor_dump(idsize, order)
        open(f"{HERE}/monitor-{tag}.bin", "wb").write(buf)
        counts = {}
        for r in recs:
            counts[r] = counts.get(r, 0) + 1
        open(f"{HERE}/monitor-{tag}.expected", "w").write(expected(list(counts.items())))


if __name__ == "__main__":
    main()

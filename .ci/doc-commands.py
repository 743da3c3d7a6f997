#!/usr/bin/env python3
"""Runs the commands the documentation shows, as a newcomer would paste them.

1. README.md's first command, read from README.md itself (its first ```sh block, first line):
   it must exit 0 and print something.
2. Every `cargo run … --example …` command in a README.md or a crate's src/lib.rs docs that
   names a file of the repository, or asks for --help: each must exit with the status the line
   states (`# exits N` after it; 0 when it states none) and print something on stdout.
   Commands with placeholders (heap.hprof, FILE, PACKAGE) are listed as skipped.

Runs from the repository root; exits 1 naming every command that failed.
"""
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def first_command(readme: pathlib.Path) -> str:
    text = readme.read_text()
    m = re.search(r"```(?:sh|bash|console)\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"{readme}: no ```sh code block")
    lines = [l.strip() for l in m.group(1).splitlines() if l.strip() and not l.strip().startswith("#")]
    if not lines:
        sys.exit(f"{readme}: the first code block is empty")
    return lines[0]


def documented_commands():
    files = sorted(ROOT.glob("*/README.md")) + [ROOT / "README.md"] + sorted(ROOT.glob("*/src/lib.rs"))
    for path in files:
        if "target" in path.parts or "fuzz" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = re.sub(r"^\s*//!\s?", "", line) if path.suffix == ".rs" else line
            for m in re.finditer(r"(cargo run [^`\n]*--example [^`\n]*)", line):
                command = m.group(1).strip()
                status = 0
                s = re.search(r"#\s*exits?\s+(\d+)", command)
                if s:
                    status = int(s.group(1))
                command = command.split("#")[0].strip()
                yield path.relative_to(ROOT), number, command, status


def names_repo_file(command: str) -> bool:
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    args = words[words.index("--") + 1:] if "--" in words else []
    return any((ROOT / w).is_file() or ((ROOT / w).is_dir() and w.rstrip("/") != ".") for w in args)


def run(command: str, status: int) -> str | None:
    proc = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != status:
        return f"exit {proc.returncode}, expected {status}\n{proc.stderr[-2000:]}"
    if not proc.stdout.strip():
        return f"printed nothing on stdout\n{proc.stderr[-2000:]}"
    return None


def main() -> int:
    failed = []
    demo = first_command(ROOT / "README.md")
    print(f"--- README.md's first command: {demo}", flush=True)
    why = run(demo, 0)
    if why:
        failed.append(("README.md (first command)", demo, why))
    seen = {demo}
    ran = 1
    for path, number, command, status in documented_commands():
        if command in seen:
            continue
        seen.add(command)
        placeholder = any(re.fullmatch(r"[A-Z][A-Z_]+(\.[a-z]+)?", w) for w in command.split())
        if placeholder or not (names_repo_file(command) or "--help" in command.split()):
            print(f"skipped (no file of the repository): {path}:{number}: {command}")
            continue
        print(f"--- {path}:{number}: {command}", flush=True)
        ran += 1
        why = run(command, status)
        if why:
            failed.append((f"{path}:{number}", command, why))
    for where, command, why in failed:
        print(f"FAILED {where}: {command}\n{why}")
    print(f"documented commands: {ran - len(failed)} ran as documented, {len(failed)} did not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Per kernel of `cuobjdump -sass` output: how many global loads (LDG) it issues before its first global store
(STG), and how many after, in program order. A kernel that loads all of its rows before it stores shows them all
before; ptxas may move a read-only (`ld.global.nc`) load below a store and serialise a thread's rows (ITERATIONS.md
scale_shift iteration 11: bf16's twin issued 3 loads before its first store where fp16's issued 4). Loads after the
first store can be legitimate too (a branch that reloads a broadcast row), so compare a kernel with its twin or with
the loads its source issues up front.
Usage (on the GPU machine, whose toolkit has cuobjdump):
  ako compile task T --device 'NVIDIA H200' --cache-dir /tmp/c ...; cuobjdump -sass /tmp/c/*/*.cubin > sass.txt
  scripts/sass_load_order.py sass.txt     (or - for stdin)"""
import re
import sys

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def load_order(lines):
    """[(kernel, loads before the first store, loads after it, stores)] in the order the kernels appear."""
    out, name, before, after, stores = [], None, 0, 0, 0
    for line in lines:
        m = FUNCTION.search(line)
        if m:
            if name is not None:
                out.append((name, before, after, stores))
            name, before, after, stores = m.group(1), 0, 0, 0
            continue
        m = INSTRUCTION.search(line)
        if not m or name is None:
            continue
        op = m.group(1).split(".")[0]
        if op == "LDG":
            if stores:
                after += 1
            else:
                before += 1
        elif op == "STG":
            stores += 1
    if name is not None:
        out.append((name, before, after, stores))
    return out


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    try:
        lines = sys.stdin.readlines() if argv[0] == "-" else open(argv[0]).readlines()
    except OSError as e:
        sys.exit(f"sass_load_order: cannot read {argv[0]}: {e.strerror}")
    kernels = load_order(lines)
    if not kernels:
        sys.exit(f"sass_load_order: no \"Function :\" in {argv[0]}: not cuobjdump -sass output")
    for name, before, after, stores in kernels:
        print(f"{before:3d} loads before the first store, {after:3d} after, {stores:3d} stores  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""The headline metrics of ncu details-page CSVs (`ncu --import R --csv --page details`): per file, the kernel's
name and one line of the metrics below (the first value ncu lists for each), so two kernels' reports read side by
side.  Usage: scripts/ncu_details.py DETAILS_CSV ..."""
import csv
import sys

METRICS = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Registers Per Thread",
           "Grid Size", "Block Size", "Theoretical Occupancy", "Achieved Occupancy", "Issued Warp Per Scheduler",
           "Warp Cycles Per Issued Instruction", "Executed Instructions", "SM Active Cycles", "Elapsed Cycles"]


def read_rows(path):
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError as e:
        sys.exit(f"ncu_details: cannot read {path}: {e.strerror}")
    if not rows or "Metric Name" not in rows[0]:
        sys.exit(f"ncu_details: {path} has no \"Metric Name\" column: not an ncu details-page CSV "
                 "(ncu --import R --csv --page details)")
    return rows


def details(path):
    """The kernel's name and 'metric: value unit' for each of METRICS the report has, in METRICS' order."""
    rows = read_rows(path)
    seen = {}
    for r in rows:
        name = r.get("Metric Name", "")
        if name in METRICS and name not in seen:
            seen[name] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
    return rows[0].get("Kernel Name", "?"), [f"{n}: {seen[n]}" for n in METRICS if n in seen]


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        kernel, values = details(path)
        print(f"  kernel ({path.split('/')[-1]}): {kernel[:150]}")
        print("  " + "; ".join(values))


if __name__ == "__main__":
    main(sys.argv[1:])

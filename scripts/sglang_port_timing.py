"""Stage 5 of scripts/sglang_port_gpu.py with --engine-timing: the ported kernel, as SGLang's JIT
built it and tvm-ffi loads it, timed against the engine's own kernels of the family and torch
eager in ONE process, their samples interleaved (bench/peers/timing.py's time_interleaved: CUPTI
kernel durations through torch.profiler, cold L2 by a 2 x L2 memset, the IQM), on every compare
case of the task. This is the issue-14/15 table with the engine and ako measured in the same run:
where the engine's kernel is Triton or CuTe DSL it cannot be an NVRTC column of `ako run`, and
timing it from another process (bench/peer_timing.py after `ako run`) compares two timers.

Each peer of bench/peers/<task>.py (torch, sglang_triton, sglang_cute, ...) is first checked
against the float64 reference at --peer-tolerance (SGLang's own tests use 5e-2); a wrong or
inapplicable peer is reported, not timed. The ported kernel is checked at the task's tolerance
(stage 2 already proved it on every case). Every peer, and the port, gets its own copy of the
case's tensors (same seed), so an in-place op never feeds another its output.

Writes engine-timing-<task>.json per task (schema ako.peer_bench/1, as bench/peer_timing.py
writes it, with the peer "ako_port" first, `interleaved`: true, each case's `elements` and the
copy bandwidth measured as ako measures it), read by scripts/engine_table.py.

Each case also times a size copy in the same rotation, under the same flush and timer: a torch
device-to-device copy of half the case's bytes each way (as `ako run --size-copy`), its case's
"size_copy" entry ({"bytes", "time"}), no peer; engine_table.py asks it whether a missed bar would
need ako to outrun a copy of the case's own bytes.

With --placements N each case is timed in N rounds, round p after a pad of p x 37 MiB is allocated,
so that every tensor (each peer's, the port's, the size copy's) sits at other addresses: where a
kernel's time depends on where its tensors fall in memory, one round is one draw of that. Each
kernel's reported time is its median round; every round's IQM is kept (placements_iqm_us).
--timing-shapes restricts the timing to some shapes (the checks before it still run every case).
"""
from __future__ import annotations

import json
import math
import time
import zlib

SIZE_COPY = "size_copy"   # its name in the rotation; never a peer of the document
GRANULE = 64 << 10        # bytes; ako's size copy is whole 64 KiB granules each way
PAD_BYTES = 37 << 20     # placement p's pad: p x 37 MiB (not a power of two) allocated before the round
ORDER_NOTE = ("interleaved: round r runs every kernel once starting at the r-th; one process, one flush, "
              "the IQM of --samples per kernel")


def largest_output(case):
    """Elements of the case's largest output (ako's `elements`, which sizes the copy bar)."""
    outs = [math.prod(b.shape) for b in case.buffers.values() if b.present and b.role in ("out", "inout")]
    return max(outs) if outs else 0


def size_copy_half(nbytes):
    """Bytes each way of the size copy of a case of nbytes, as `ako run --size-copy`
    (harness/exec/worker/case_timing.cpp): half of them, to the nearest whole granule, at least
    one (a tail past whole granules costs the copy call microseconds, not the bytes)."""
    return max(1, int(nbytes / 2 / GRANULE + 0.5)) * GRANULE


def time_case(torch, timer, fns, row, dev):
    """Times fns (name -> callable) and a size copy of the case's bytes in ONE interleaved
    rotation, so the copy sees the same flush, timer and clock as the kernels; fills each timed
    peer's entry of row and row["size_copy"]; returns the peers' stats (the copy left out)."""
    half = size_copy_half(row["bytes"])
    src = torch.zeros(half, dtype=torch.uint8, device=dev)   # allocated once per case, freed on return
    dst = torch.empty_like(src)
    stats = timer.time_interleaved({**fns, SIZE_COPY: lambda: dst.copy_(src)}, copies=(SIZE_COPY,))
    row["size_copy"] = {"bytes": 2 * half, "time": stats.pop(SIZE_COPY)}
    for n, s in stats.items():
        row["peers"][n].update(verdict="correct", time=s, gbps=row["bytes"] / (s["iqm_us"] * 1e-6) / 1e9)
    return stats


def median_round(entries):
    """The entry (a peer's or the size copy's, one per round) of the round with the median IQM (the
    upper median for an even count), with every round's IQM as placements_iqm_us when there are several."""
    out = dict(sorted(entries, key=lambda e: e["time"]["iqm_us"])[len(entries) // 2])
    if len(entries) > 1:
        out["placements_iqm_us"] = [e["time"]["iqm_us"] for e in entries]
    return out


def merge_placements(row, rounds):
    """Fills row's peers and size copy from the placements' rounds, each by median_round; a peer not
    timed in some round takes that round's entry (its verdict and reason). Returns the timed peers'
    names (as time_case returns its stats' keys)."""
    timed = []
    for n in rounds[0]["peers"]:
        entries = [r["peers"][n] for r in rounds]
        untimed = [e for e in entries if "time" not in e]
        if untimed:  # not timed in some round: that round's entry says why (a wrong verdict first)
            row["peers"][n] = dict(next((e for e in untimed if e.get("verdict") not in (None, "correct")), untimed[0]))
            continue
        row["peers"][n] = median_round(entries)
        timed.append(n)
    row["size_copy"] = median_round([r["size_copy"] for r in rounds])
    return timed


def write(args, head, task, run, peers, rows, complete):
    """engine-timing-<task>.json as it stands (complete: every case timed); returns the document."""
    doc = {**head, "task": task, "complete": complete, "config": run.config.name,
           "peers": [{"name": "ako_port", "description": "ako's solution as `ako port` wrote it into SGLang, "
                      "built with SGLang's JIT flags, called through tvm-ffi"}]
           + [{"name": p.name, "description": p.description} for p in peers],
           "cases": rows}
    path = args.out / f"engine-timing-{task}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    tmp.replace(path)
    return doc


def engine_timing(torch, runs, args, dev, failures, log):
    """Time every task case of every run; returns {task: the JSON document written}."""
    import peer_timing
    from peers import check, sglang_loader, timing
    from peers.torch_ops import make_tensors
    from sglang_port_gpu import case_bytes, guarded_outputs, kernel_args, with_bands

    timer = timing.Timer(samples=args.samples, warmup=10)
    copy_gbs = timing.copy_bandwidth_gbs()
    log(f"copy bandwidth {copy_gbs:.0f} GB/s (1 GiB device-to-device copy, median of 20); {ORDER_NOTE}")
    tol = tuple(args.peer_tolerance) if args.peer_tolerance else None
    head = {"schema": "ako.peer_bench/1", "device": torch.cuda.get_device_name(), "torch": torch.__version__,
            "versions": peer_timing._versions(), "sglang": sglang_loader.VERSION, "l2": "cold",
            "timer": "profiler-interleaved", "samples": args.samples, "warmup": 10, "interleaved": True,
            "copy_bandwidth_gbs": copy_gbs, "tolerance": {"atol": tol[0], "rtol": tol[1]} if tol else "task",
            "placements": args.placements}
    if args.timing_shapes:
        head["shapes"] = sorted(args.timing_shapes)
    docs = {}
    for t, run in runs.items():
        peers = list(run.family.PEERS)
        unavailable = {p.name: peer_timing.static_status(p) for p in peers}
        names = ["ako_port"] + [p.name for p in peers]
        rows = []
        t0 = time.time()
        for kind, case in run.cases:
            if kind != "task" or not run.allowed(case):
                continue
            if args.timing_shapes and case.shape not in args.timing_shapes:
                continue
            seed = zlib.crc32(case.label.encode())
            bound = run.family.bind(case)
            row = {"shape": case.shape, "dims": case.dims, "dtype": case.dtype, "flags": case.flags,
                   "axes": {k: str(v) for k, v in case.axes.items()}, "label": case.label,
                   "bytes": case_bytes(case), "elements": largest_output(case), "peers": {}}
            want = run.family.reference(bound, make_tensors(case, seed, device=dev))
            rounds = []
            for placement in range(args.placements):
                # placement p > 0: a pad allocated first, so every tensor of the round (each
                # peer's own copy, the port's bands, the size copy) lands at other addresses
                pad = torch.empty(placement * PAD_BYTES, dtype=torch.uint8, device=dev) if placement else None
                r = {"peers": {}, "bytes": row["bytes"]}
                fns = {}
                # the port: the entry the ported dispatch picks, on outputs inside guard bands
                tensors = make_tensors(case, seed, device=dev)
                bands = guarded_outputs(torch, case, tensors, dev)
                kt = with_bands(torch, case, tensors, bands)
                fn = run.fns[run.entry(case).export]
                kargs = kernel_args(run, case, kt)
                fn(*kargs)
                torch.cuda.synchronize()
                got = {role: bands[name][1] for role, name in bound.outputs.items()}
                bad = check.compare(case, bound, got, want)
                r["peers"]["ako_port"] = {"entry": run.entry(case).kernel, "class": run.picked(case)[0]}
                if bad:
                    failures.append(f"{t} [timing] {case.label}: the port: {bad['reason']}")
                    r["peers"]["ako_port"].update(verdict="incorrect", reason=bad["reason"])
                else:
                    fns["ako_port"] = lambda fn=fn, kargs=kargs: fn(*kargs)
                for p in peers:
                    entry = r["peers"][p.name] = {}
                    pf = peer_timing.checked_peer(p, case, bound, lambda: make_tensors(case, seed, device=dev),
                                                  lambda w=want: w, tol, unavailable, entry)
                    if pf is not None and entry.get("verdict") != "incorrect":
                        fns[p.name] = pf
                time_case(torch, timer, fns, r, dev)
                rounds.append(r)
                del fns, tensors, bands, kt, got, pad
                torch.cuda.empty_cache()
            stats = merge_placements(row, rounds)
            rows.append(row)
            write(args, head, t, run, peers, rows, complete=False)  # a run cut short keeps its cases
            us = "  ".join(f"{n} {row['peers'][n]['time']['iqm_us']:.2f}" for n in names if n in stats)
            us += f"  size copy {row['size_copy']['time']['iqm_us']:.2f}"
            if args.placements > 1:
                us += "  (placements: " + "; ".join(
                    f"{n} " + " ".join(f"{x:.2f}" for x in row["peers"][n]["placements_iqm_us"])
                    for n in names if n in stats) + ")"
            log(f"  {t} {case.label:<70} {us}")
            del want
        docs[t] = write(args, head, t, run, peers, rows, complete=True)
        log(f"  {t}: {len(rows)} cases timed in {time.time() - t0:.0f} s; wrote engine-timing-{t}.json")
    return docs

#!/usr/bin/env python3
"""The entry points `ako port` made for a task, read from its task.json and the ported Python
wrapper: one per template-argument set (every flag x every axis value x every dtype of the
task), each spelled as the wrapper's load_jit asks SGLang's JIT to build it:
cuda_wrappers=[("ako_<op>", f"Ako<Op>Kernel<{make_cpp_args(flags..., axis codes..., dtype)}>::run")].

    python3 scripts/sglang_port_entries.py TASK_JSON WRAPPER_PY                 # list them
    python3 scripts/sglang_port_entries.py TASK_JSON WRAPPER_PY --unit KERNEL [--shard I/N]
        # a wrapper unit exporting every entry (or the I-th of N interleaved shares of them)

The axis codes are the wrapper's own tables (_AXIS_<NAME> = {"value": code} or a tuple of
integers), so a port whose C++ and Python disagreed would show here. No torch needed: the
dtype spelling is SGLang's CPP_DTYPE_MAP (cpp_args.py) for the dtypes tasks use.
"""
from __future__ import annotations

import ast
import itertools
import json
import pathlib
import re
import sys
from dataclasses import dataclass, field

CPP_DTYPE = {"bf16": "bf16_t", "fp16": "fp16_t", "fp32": "fp32_t"}  # sglang cpp_args.CPP_DTYPE_MAP


@dataclass
class Entry:
    task: str
    dtype: str                                  # bf16, fp16, fp32
    flags: dict = field(default_factory=dict)   # flag -> bool
    axes: dict = field(default_factory=dict)    # axis -> value (str or int)
    template_args: str = ""                     # "true, 2, 7, bf16_t"
    kernel: str = ""                            # "AkoScaleShiftKernel<2, 7, bf16_t>::run"
    module: str = ""                            # the wrapper's export name, "ako_scale_shift"
    export: str = ""                            # a name unique in a unit exporting every entry

    @property
    def label(self):
        parts = [self.dtype] + [(f if on else "no" + f) for f, on in self.flags.items()]
        return " ".join(parts + [f"{a}={v}" for a, v in self.axes.items()])


@dataclass
class Port:
    task: str
    spec: dict
    module: str          # "ako_layernorm"
    struct: str          # "AkoLayernormKernel"
    cuda_file: str       # "diffusion/layernorm.cuh" (relative to the kernel root)
    tables: dict         # axis -> {value: code} or (values,)
    entries: list


def _wrapper_facts(text, path):
    m = re.search(r'cuda_files=\["([^"]+)"\],\s*cuda_wrappers=\[\("(\w+)", f"(\w+)<\{args\}>::run"\)\]', text)
    if not m:
        raise ValueError(f"{path}: no load_jit(cuda_files=[...], cuda_wrappers=[(name, f\"Struct<{{args}}>::run\")]) call: "
                         "not a wrapper `ako port` wrote")
    tables = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id.startswith("_AXIS_"):
            tables[node.targets[0].id[len("_AXIS_"):].lower()] = ast.literal_eval(node.value)
    return m.group(1), m.group(2), m.group(3), tables


def read_port(task_json, wrapper_py) -> Port:
    spec = json.loads(pathlib.Path(task_json).read_text())
    text = pathlib.Path(wrapper_py).read_text()
    cuda_file, module, struct, tables = _wrapper_facts(text, wrapper_py)
    flags = spec.get("flags", [])
    axes = spec.get("axes", [])
    for a in axes:
        t = tables.get(a["name"].lower())
        if t is None:
            raise ValueError(f"{wrapper_py}: no table _AXIS_{a['name'].upper()} for axis {a['name']} of {task_json}")
        missing = [v for v in a["values"] if v not in t]
        if missing:
            raise ValueError(f"{wrapper_py}: _AXIS_{a['name'].upper()} lacks {missing} (task.json: {a['values']})")
    entries = []
    for dtype in spec["dtypes"]:
        for fl in itertools.product((True, False), repeat=len(flags)):
            for ax in itertools.product(*[a["values"] for a in axes]):
                e = Entry(spec["name"], dtype, dict(zip(flags, fl)), {a["name"]: v for a, v in zip(axes, ax)})
                args = ["true" if on else "false" for on in fl]
                for a, v in zip(axes, ax):
                    t = tables[a["name"].lower()]
                    args.append(str(t[v] if isinstance(t, dict) else v))
                args.append(CPP_DTYPE[dtype])
                e.template_args = ", ".join(args)
                e.kernel = f"{struct}<{e.template_args}>::run"
                e.module = module
                suffix = "_".join([("" if on else "no") + f for f, on in e.flags.items()] + [str(v) for v in e.axes.values()] + [dtype])
                e.export = re.sub(r"\W", "_", f"{module}_{suffix}")
                entries.append(e)
    return Port(spec["name"], spec, module, struct, cuda_file, tables, entries)


def shard(entries, i, n):
    """The i-th (0-based) of n interleaved shares: neighbouring entries differ in one template
    argument, so each share gets a similar mix of kernels to compile."""
    return entries[i::n]


def check_unit(port: Port, entries, name: str):
    """One unit exporting several entries under their own names (the checks' modules)."""
    return (name, [port.cuda_file], [(e.export, e.kernel) for e in entries])


def unit_of(entry: Entry, cuda_file: str):
    """The unit the ported wrapper's load_jit asks for: (name, cuda_files, [(export, kernel)])."""
    return (f"{entry.module}<{entry.template_args}>", [cuda_file], [(entry.module, entry.kernel)])


def main():
    args = sys.argv[1:]
    sharded = len(args) == 6 and args[4] == "--shard"
    if not (len(args) == 2 or (len(args) in (4, 6) and args[2] == "--unit" and (len(args) == 4 or sharded))):
        sys.exit(__doc__)
    port = read_port(args[0], args[1])
    if len(args) == 2:
        for e in port.entries:
            print(f"{e.export}\t{e.kernel}\t{e.label}")
        return
    entries = port.entries
    if sharded:
        i, n = (int(v) for v in args[5].split("/"))
        entries = shard(entries, i, n)
    # spec._wrapper_source's shape, with several exports (the CPU compile check)
    print("#include <tvm/ffi/container/tensor.h>\n#include <tvm/ffi/dtype.h>\n#include <tvm/ffi/error.h>\n"
          "#include <tvm/ffi/extra/c_env_api.h>\n#include <tvm/ffi/function.h>")
    print(f'#include "{args[3]}"\nnamespace sglang {{')
    for e in entries:
        print(f"TVM_FFI_DLL_EXPORT_TYPED_FUNC({e.export}, ({e.kernel}));")
    print("}  // namespace sglang")


if __name__ == "__main__":
    main()

"""A task's compare cases as ako expands them (harness/task/cases.cpp), in Python and without
torch: shapes (spec order) x dtypes x flags (true before false) x axes (values in order), the
first varying slowest, kept where the task's top-level `when` holds. Each case carries its
buffers with evaluated extents, dtypes, presence and init, its scalars and its tolerances, so
a family module can bind them to the op and bench/peer_timing.py can build the tensors.

A case's key joins it with `ako run --json` (harness/result/SCHEMA.md): shape name, dtype,
flags, and axes as text."""
import json
import pathlib
from dataclasses import dataclass, field

from . import expr

_DTYPES = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "half": "fp16",
           "fp32": "fp32", "float32": "fp32", "float": "fp32"}
ELEM_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "i32": 4, "i64": 8}
DEFAULT_TOLERANCE = {"bf16": (1e-2, 1e-2), "fp16": (1e-2, 1e-2), "fp32": (1e-5, 1e-5)}


class TaskError(ValueError):
    """task.json says something this reader cannot follow: names the file and the field."""


@dataclass
class Buffer:
    name: str
    role: str          # in, out, inout
    dtype: str         # bf16, fp16, fp32, i32, i64
    shape: tuple       # evaluated extents
    present: bool
    init: dict
    tolerance: tuple   # (atol, rtol) for outputs
    view: dict = None  # {"of", "offset", "strides"} evaluated, or None


@dataclass
class Case:
    task: str
    shape: str
    dims: dict
    dtype: str
    flags: dict
    axes: dict
    buffers: dict = field(default_factory=dict)   # name -> Buffer, in spec order
    scalars: dict = field(default_factory=dict)   # name -> int or float

    @property
    def label(self):
        """ako's case label: shape, dtype, each flag as <flag>/no<flag>, each axis as
        <axis>=<value>, flags then axes, each in name order."""
        parts = [self.shape, self.dtype]
        parts += [(n if on else "no" + n) for n, on in sorted(self.flags.items())]
        parts += [f"{n}={v}" for n, v in sorted(self.axes.items())]
        return " ".join(parts)

    @property
    def key(self):
        return case_key(self.shape, self.dtype, self.flags, self.axes)

    def env(self):
        env = dict(self.dims)
        env.update({n: int(v) for n, v in self.flags.items()})
        env.update(self.axes)
        return env


def case_key(shape, dtype, flags, axes):
    """The join key of a case, from its parts as either side writes them (axes as text)."""
    return (shape, dtype, tuple(sorted((k, bool(v)) for k, v in (flags or {}).items())),
            tuple(sorted((k, str(v)) for k, v in (axes or {}).items())))


def load_task(path):
    path = pathlib.Path(path)
    try:
        spec = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise TaskError(f"{path}: {e}") from e
    if spec.get("schema") != "ako.task/2":
        raise TaskError(f"{path}: field 'schema': expected \"ako.task/2\", got {spec.get('schema')!r}")
    spec["_file"] = str(path)
    return spec


def _dtype_of(spec, buf, case_dtype, axes):
    d = buf.get("dtype", "$dtype")
    if d == "$dtype":
        return case_dtype
    if d.startswith("$"):
        v = axes.get(d[1:])
        if v is None:
            raise TaskError(f"{spec['_file']}: buffer '{buf['name']}': dtype {d} names no axis")
        return case_dtype if v == "same" else _DTYPES.get(v, v)
    return _DTYPES.get(d, d)


def _tolerance(spec, buf, dtype):
    for source in (buf.get("tolerance"), spec.get("tolerance")):
        if source:
            for k, v in source.items():
                if _DTYPES.get(k) == dtype:
                    base = DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))
                    return (float(v.get("atol", base[0])), float(v.get("rtol", base[1])))
    return DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))


def _variants(spec):
    out = [({}, {})]
    for f in spec.get("flags", []):
        out = [({**fl, f: on}, ax) for fl, ax in out for on in (True, False)]
    for a in spec.get("axes", []):
        out = [(fl, {**ax, a["name"]: v}) for fl, ax in out for v in a["values"]]
    return out


def build_case(spec, shape, dtype, flags, axes):
    dims = {d: shape[d] for d in spec["dims"]}
    case = Case(spec["name"], shape["name"], dims, dtype, flags, axes)
    env = case.env()
    where = f"{spec['_file']}: case \"{case.label}\""
    try:
        for b in spec["buffers"]:
            present = expr.holds(b["present_if"], env) if "present_if" in b else True
            bdtype = _dtype_of(spec, b, dtype, axes)
            shp = tuple(expr.evaluate(e, env) for e in b["shape"])
            view = None
            if "view" in b:
                v = b["view"]
                view = {"of": v["of"], "offset": expr.evaluate(v.get("offset", 0), env),
                        "strides": tuple(expr.evaluate(s, env) for s in v["strides"])}
                storage = case.buffers[v["of"]]
                bdtype, present = storage.dtype, storage.present
            init = b.get("init", {"dist": "normal", "mean": 0.0, "std": 1.0})
            if init.get("dist") == "range":
                init = {**init, "low": expr.evaluate(init["low"], env), "high": expr.evaluate(init["high"], env)}
            case.buffers[b["name"]] = Buffer(b["name"], b["role"], bdtype, shp, present, init,
                                             _tolerance(spec, b, bdtype), view)
        for s in spec.get("scalars", []):
            case.scalars[s["name"]] = (float(s["value"]) if s["type"] == "f32"
                                       else expr.evaluate(s["value"], env))
    except expr.ExprError as e:
        raise TaskError(f"{where}: {e}") from e
    return case


def expand(spec, shapes=None, dtypes=None):
    """The compare cases of the spec, optionally only the named shapes and dtypes."""
    known = [s["name"] for s in spec["shapes"]]
    for n in shapes or []:
        if n not in known:
            raise TaskError(f"{spec['_file']}: no shape \"{n}\" (known: {', '.join(known)})")
    for d in dtypes or []:
        if _DTYPES.get(d) not in spec["dtypes"]:
            raise TaskError(f"{spec['_file']}: no dtype \"{d}\" (the task has {', '.join(spec['dtypes'])})")
    want_dtypes = [_DTYPES[d] for d in dtypes] if dtypes else [_DTYPES.get(d, d) for d in spec["dtypes"]]
    when = spec.get("when")
    cases = []
    for shape in spec["shapes"]:
        if shapes and shape["name"] not in shapes:
            continue
        for dtype in [_DTYPES.get(d, d) for d in spec["dtypes"]]:
            if dtype not in want_dtypes:
                continue
            for flags, axes in _variants(spec):
                if when:
                    env = {d: shape[d] for d in spec["dims"]}
                    env.update({n: int(v) for n, v in flags.items()})
                    env.update(axes)
                    try:
                        if not expr.holds(when, env):
                            continue
                    except expr.ExprError as e:
                        raise TaskError(f"{spec['_file']}: field 'when': shape \"{shape['name']}\": {e}") from e
                cases.append(build_case(spec, shape, dtype, flags, axes))
    return cases

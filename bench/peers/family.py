"""What the family modules share, without torch: binding a case's buffers to the roles of the op
(x, residual, gate, scale, shift, weight, bias; outputs y, residual_out) by name, the [B, L, C]
view of the activation, the form in which a broadcast operand is handed to an engine (the
shapes SGLang's kernels take), and the description of a peer.

Buffer names: the first of each role's aliases that the task declares. A task that names a
role otherwise fails to bind with a message listing what was looked for."""
from dataclasses import dataclass, field
from typing import Callable, Optional

ALIASES = {
    "x": ("x", "input", "hidden_states", "inp"),
    "residual": ("residual", "res"),
    "gate": ("gate",),
    "scale": ("scale",),
    "shift": ("shift",),
    "weight": ("weight", "w", "gamma"),
    "bias": ("bias", "b", "beta"),
    "y": ("y", "out", "output"),
    "residual_out": ("residual_out", "res_out", "residual_output"),
}
NORM_VALUES = {"layer": "layer", "layernorm": "layer", "ln": "layer", "rms": "rms", "rmsnorm": "rms"}


class BindError(ValueError):
    """The task's buffers do not fit the family's op as this module reads it."""


@dataclass
class Bound:
    """One case, seen as the family's op. Operand fields hold the case's Buffer, or None when
    the task has no such buffer or it is absent in this case (present_if false)."""
    case: object
    B: int
    L: int
    C: int
    x: object
    outputs: dict                 # role -> buffer name, e.g. {"y": "y", "residual_out": "residual_out"}
    residual: object = None
    gate: object = None
    scale: object = None
    shift: object = None
    weight: object = None
    bias: object = None
    norm: Optional[str] = None    # "layer" or "rms"
    eps: float = 1e-6
    forms: dict = field(default_factory=dict)  # role -> the shape the engine receives (mod_form)


def find(case, role, required=True):
    """The Buffer playing `role` in this case (None when absent or, if not required, undeclared)."""
    for name in ALIASES[role]:
        if name in case.buffers:
            b = case.buffers[name]
            return b if b.present else None
    if required:
        raise BindError(f"task {case.task}: no buffer for the op's '{role}' "
                        f"(looked for {', '.join(ALIASES[role])}; declared: {', '.join(case.buffers)})")
    return None


def norm_type(case, default):
    """'layer' or 'rms': from a string axis whose values name norms (e.g. norm: [layer, rms]),
    else the family's default."""
    for name, value in case.axes.items():
        if isinstance(value, str) and value in NORM_VALUES:
            return NORM_VALUES[value]
    return default


def activation_dims(case, x):
    """(B, L, C) of the activation: [B, L, C] as is, [rows, C] as B = 1."""
    s = x.shape
    if len(s) == 3:
        return s
    if len(s) == 2:
        return (1, s[0], s[1])
    raise BindError(f"task {case.task}: expected x as [B, L, C] or [rows, C], got a {len(s)}-D shape {s}")


def mod_form(case, buf, B, L, C):
    """The shape a broadcast operand (scale, shift, gate) is viewed as for the engine, from the
    extents the task gives it (always the same elements, row-major, no copy):
      numel 1                 -> (1,)            scalar
      [C]                     -> (C,)
      [B, C] / [B, 1, (1,) C] -> (B, C)          per batch: the AdaLN form DiT blocks pass
      [B, F, 1, C], F > 1     -> (B, F, 1, C)    per frame, L % F == 0
      otherwise               -> (b, l, C)       b in {1, B}, l in {1, L}
    A per-frame operand with F = 1 is per batch: image models pass [B, 1, C] there."""
    s, n = buf.shape, 1
    for d in buf.shape:
        n *= d
    if n == 1:
        return (1,)
    if s[-1] != C:
        raise BindError(f"task {case.task}: buffer '{buf.name}' {s} does not end in C = {C}")
    if len(s) == 1:
        return (C,)
    if len(s) == 4 and s[2] == 1 and s[1] > 1:
        if L % s[1]:
            raise BindError(f"task {case.task}: buffer '{buf.name}' has F = {s[1]} frames, L = {L} is no multiple")
        return (s[0], s[1], 1, C)
    if len(s) == 2 and s[0] == L and L != B:
        return (1, L, C)
    b = s[0]
    l = n // (b * C)
    if b not in (1, B) or l not in (1, L) or b * l * C != n:
        raise BindError(f"task {case.task}: buffer '{buf.name}' {s} is no broadcast of [B, L, C] = [{B}, {L}, {C}]")
    return (b, C) if l == 1 else (b, l, C)


def bind(case, roles, outputs, default_norm=None):
    """Bind a case: `roles` the operand roles the family reads (x always), `outputs` its output
    roles in the order the peers return them."""
    x = find(case, "x")
    if x is None:
        raise BindError(f"task {case.task}: x is absent in case {case.label}")
    B, L, C = activation_dims(case, x)
    bound = Bound(case=case, B=B, L=L, C=C, x=x, outputs={})
    for role in outputs:
        buf = find(case, role)
        if buf is None:
            raise BindError(f"task {case.task}: output '{role}' is absent in case {case.label}")
        bound.outputs[role] = buf.name
    for role in roles:
        buf = find(case, role, required=False)
        setattr(bound, role, buf)
        if buf is not None and role in ("gate", "scale", "shift"):
            bound.forms[role] = mod_form(case, buf, B, L, C)
    bound.norm = norm_type(case, default_norm)
    bound.eps = float(case.scalars.get("eps", 1e-6))
    return bound


@dataclass
class Peer:
    """A column of the table: torch eager or one of the engine's kernels, timed from Python.
      needs:   Python modules it imports (checked without importing them for --dry-run)
      files:   files under the repository it needs (scripts/fetch-sglang.sh puts SGLang's there)
      applies: Bound -> None when the engine would run this kernel for the case, else why not
      make:    (Bound, tensors by buffer name) -> a no-argument callable returning the outputs
               as a dict role -> tensor; imports torch and the engine lazily"""
    name: str
    description: str
    make: Callable
    applies: Callable = lambda bound: None
    needs: tuple = ()
    files: tuple = ()

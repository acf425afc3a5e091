"""The Python-side peers of ako's tasks (bench/peer_timing.py): one module per family, named as
its task (torch eager and the engine's own kernels, with a float64 reference), and what they share:
case expansion (cases.py, expr.py), binding (family.py), tensors (torch_ops.py), checking
(check.py), timing (timing.py) and loading SGLang's kernel modules (sglang_loader.py)."""

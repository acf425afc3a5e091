"""`ako validate`'s torch side: does a ported kernel's microbench win show in a real DiT block?

A stack of transformer blocks at a model's real dims and token counts (models.py; random bf16
weights, attention through torch SDPA) calls every site of an ako family (AdaLN modulation,
norms, QK-norm, RoPE, gated activations) through a dispatch table (dispatch.py) with three
backends: torch eager (the diffusers path, ops_torch.py), the engine's kernels as SGLang's
diffusion runtime picks them on CUDA (ops_engine.py: Triton / CuTe DSL through bench/peers, its
JIT kernels through SGLang's own wrappers from the payload, engine_jit.py), and the
kernels `ako port` wrote into an SGLang tree, built and loaded through tvm-ffi as SGLang's JIT
does (ops_ako.py). measure.py times steps (eager and CUDA graphs) and attributes kernels to
families; verdict.py (no torch) turns the numbers into verdicts; __main__.py writes the JSON
`ako validate` reads (schema ako.validate/1)."""

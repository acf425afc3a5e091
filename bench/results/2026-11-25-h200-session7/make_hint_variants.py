"""Experiment (not shipped): variants of a solution .cuh whose streamed loads and stores carry
other L2 eviction hints, for `ako run --solution`. Usage: make_hint_variants.py SRC OUTDIR."""
import pathlib, re, sys

HELPERS = r'''
namespace ako_hint {
__device__ __forceinline__ unsigned long long evict_first() {
  unsigned long long p; asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p; }
template <int LD> __device__ __forceinline__ uint4 ld4(const void* p) {
  if constexpr (LD == 0) return __ldg(static_cast<const uint4*>(p));
  else if constexpr (LD == 1) return __ldcs(static_cast<const uint4*>(p));
  else { uint4 r; asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
           : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(evict_first())); return r; } }
template <int LD> __device__ __forceinline__ uint2 ld2(const void* p) {
  if constexpr (LD == 0) return __ldg(static_cast<const uint2*>(p));
  else if constexpr (LD == 1) return __ldcs(static_cast<const uint2*>(p));
  else { uint2 r; asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%0,%1}, [%2], %3;"
           : "=r"(r.x), "=r"(r.y) : "l"(p), "l"(evict_first())); return r; } }
template <int LD> __device__ __forceinline__ unsigned ld1(const void* p) {
  if constexpr (LD == 0) return __ldg(static_cast<const unsigned*>(p));
  else if constexpr (LD == 1) return __ldcs(static_cast<const unsigned*>(p));
  else { unsigned r; asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u32 %0, [%1], %2;"
           : "=r"(r) : "l"(p), "l"(evict_first())); return r; } }
template <int ST> __device__ __forceinline__ void st4(void* p, uint4 v) {
  if constexpr (ST == 0) *static_cast<uint4*>(p) = v;
  else if constexpr (ST == 1) __stcs(static_cast<uint4*>(p), v);
  else asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
           :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(evict_first()) : "memory"); }
template <int ST> __device__ __forceinline__ void st2(void* p, uint2 v) {
  if constexpr (ST == 0) *static_cast<uint2*>(p) = v;
  else if constexpr (ST == 1) __stcs(static_cast<uint2*>(p), v);
  else asm volatile("st.global.L1::no_allocate.L2::cache_hint.v2.u32 [%0], {%1,%2}, %3;"
           :: "l"(p), "r"(v.x), "r"(v.y), "l"(evict_first()) : "memory"); }
template <int ST> __device__ __forceinline__ void st1(void* p, unsigned v) {
  if constexpr (ST == 0) *static_cast<unsigned*>(p) = v;
  else if constexpr (ST == 1) __stcs(static_cast<unsigned*>(p), v);
  else asm volatile("st.global.L1::no_allocate.L2::cache_hint.u32 [%0], %1, %2;"
           :: "l"(p), "r"(v), "l"(evict_first()) : "memory"); }
}  // namespace ako_hint
'''

VARIANTS = {"ldg-cs": (0, 1), "cs-cs": (1, 1), "ef-cs": (2, 1), "ef-ef": (2, 2), "ldg-plain": (0, 0),
            "ef-plain": (2, 0), "cs-plain": (1, 0)}


def variant(src: str, ld: int, st: int, stream_load_fn: str, store_fn: str) -> str:
    # the streamed loads: calls of stream_load_fn on anything but the weight
    out = src
    # store body: __stcs(static_cast<uintN*>(p), X) -> ako_hint::stN<ST>(p, X)
    for n, t in ((4, "uint4"), (2, "uint2"), (1, "unsigned")):
        out = out.replace(f"__stcs(static_cast<{t}*>(p), ", f"ako_hint::st{n}<{st}>(p, ")
    # a stream-load twin of the load function with the hinted bodies
    m = re.search(r"template <int VEC> __device__ __forceinline__ Chunk<VEC> " + stream_load_fn + r"\(const void\* p\) \{.*?\n\}\n", out, re.S)
    body = m.group(0).replace(stream_load_fn + "(", stream_load_fn + "_streamed(")
    for n, t in ((4, "uint4"), (2, "uint2"), (1, "unsigned")):
        body = body.replace(f"__ldg(static_cast<const {t}*>(p))", f"ako_hint::ld{n}<{ld}>(p)")
    out = out[: m.end()] + body + out[m.end():]
    i = out.index("#include <cuda_fp16.h>\n") + len("#include <cuda_fp16.h>\n")
    return out[:i] + HELPERS + out[i:]


if __name__ == "__main__":
    src_path, outdir, kind = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    src = src_path.read_text()
    outdir.mkdir(parents=True, exist_ok=True)
    for name, (ld, st) in VARIANTS.items():
        v = variant(src, ld, st, "load_chunk", "store_chunk")
        if kind == "rmsnorm":   # x rows streamed, weight kept on the read-only path
            v = v.replace("load_chunk<VEC>(x_row", "load_chunk_streamed<VEC>(x_row")
        elif kind == "gated_act":
            v = v.replace("load_chunk<VEC>(a_row", "load_chunk_streamed<VEC>(a_row").replace(
                "load_chunk<VEC>(b_row", "load_chunk_streamed<VEC>(b_row")
        assert "_streamed<VEC>(" in v.split("namespace ako_hint")[-1].split("}  // namespace ako_hint")[-1] or True
        (outdir / f"{kind}-{name}.cuh").write_text(v)
        print(outdir / f"{kind}-{name}.cuh", v.count("_streamed<VEC>("), v.count("ako_hint::st"))

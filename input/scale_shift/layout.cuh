#pragma once
// The broadcast forms of scale and shift over x [B, L, C] (SGLang's modulate accepts them all):
//   scalar  [1]            one value for every element
//   c       [C]            one row for every token ([1, C] and [1, 1, C] are the same memory)
//   bc      [B, 1, C]      one row per batch ([B, C] is the same memory)
//   lc      [1, L, C]      one row per position, shared by the batches
//   blc     [B, L, C]      one row per token
//   bf1c    [B, F, 1, C]   one row per frame: token l of a batch is in frame l / (L / F), L % F == 0
// The kernel name template spells the axis value as Layout::{layout}.
enum class Layout { scalar, c, bc, lc, blc, bf1c };

// Element of scale / shift that token (b, l), channel c reads: the layout's own formula (the
// oracle derives it another way, from the buffer's broadcast extents).
template <Layout LAYOUT>
__device__ __forceinline__ long long modulation_index(int b, int l, int c, int L, int C, int F) {
  switch (LAYOUT) {
    case Layout::scalar: return 0;
    case Layout::c: return c;
    case Layout::bc: return static_cast<long long>(b) * C + c;
    case Layout::lc: return static_cast<long long>(l) * C + c;
    case Layout::blc: return (static_cast<long long>(b) * L + l) * C + c;
    case Layout::bf1c: return (static_cast<long long>(b) * F + l / (L / F)) * C + c;
  }
  return 0;
}

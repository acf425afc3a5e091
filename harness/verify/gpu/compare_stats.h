#pragma once
// AkoCompareStats: what ako_compare (support_kernels.cuh) reports about one compared unit (a
// whole output buffer or a writable view), and AkoView / AkoViewSet: which elements a support
// kernel walks. Shared by NVRTC device code and host C++, so: no includes, fixed-size fields only.
//
// Protocol: the host zeroes the whole struct (cuMemsetD8) before each ako_compare launch
// and reads it back after. Layout (bytes): 0 checked, 8 mismatches, 16 nonfinite,
// 24 want_nonfinite, 32 worst_key, 40 worst_index, 48 blocks_done, 56 max_abs, 60 max_rel,
// 64 worst_got, 68 worst_want, 72 got_varying, 80 want_varying; 88 bytes, no padding.
//
// Per element i, with d = |got - want|:
// - mismatch:        got or want is NaN/Inf (non-finite values never pass), or
//                    !(d <= atol + rtol * |want|).
// - nonfinite:       got is NaN/Inf while want is finite.
// - want_nonfinite:  want is NaN/Inf (the reference itself produced it).
// - max_abs:         max d over elements where got and want are both finite.
// - max_rel:         max d / max(|want|, atol, FLT_MIN) over the same elements: the relative
//                    error, with |want| floored at atol so that near-zero wants do not blow up.
// - worst_index:     an element with the largest error, where a non-finite mismatch ranks
//                    above every finite error. Ranking uses the error's top 24 bits (relative
//                    resolution 2^-16), ties go to the lowest index; exact for n < 2^40.
//                    Valid when checked > 0.
// - worst_got / worst_want: got[worst_index] and want[worst_index] as float, written by the
//                    kernel's last block to finish (the host need not read them back).
// - integer types:   mismatch when got != want (the tolerance is ignored), never non-finite;
//                    the error (for max_abs, max_rel and the worst element) is |got - want|,
//                    at least 1 for a mismatch, computed in double and stored as float.
// - got_varying / want_varying: elements whose bits differ from element 0's (got / want); 0
//                    with checked > 1 means a constant buffer (the constant-output check).
// - worst_key, blocks_done: the kernel's internal bookkeeping; keep them zeroed.
struct AkoCompareStats {
  unsigned long long checked;
  unsigned long long mismatches;
  unsigned long long nonfinite;
  unsigned long long want_nonfinite;
  unsigned long long worst_key;    // (error bits >> 7) << 40 | (2^40 - 1 - index)
  unsigned long long worst_index;
  unsigned long long blocks_done;
  float max_abs;
  float max_rel;
  float worst_got;
  float worst_want;
  unsigned long long got_varying;
  unsigned long long want_varying;
};
static_assert(sizeof(AkoCompareStats) == 88, "AkoCompareStats layout is part of the protocol");

// AkoOracleStats: what ako_oracle_error (support_kernels.cuh) reports about one compared unit:
// a kernel's output (got, in its own floating dtype) against the task's fp64 oracle (double),
// for the precision check (tasks/README.md, "Precision against the oracle"). The host zeroes
// it before the launch and reads it back after. Layout (bytes): 0 count, 8 got_nonfinite,
// 16 oracle_nonfinite, 24 sum_sq_err, 32 max_abs_err, 40 sum_sq_oracle, 48 max_abs_oracle;
// 56 bytes. Per element, g = got widened exactly to double, o = the oracle's:
// - oracle_nonfinite: o is NaN/Inf (nothing else is counted for the element).
// - got_nonfinite:    g is NaN/Inf while o is finite (nothing else is counted).
// - otherwise:        count += 1, sum_sq_err += (g - o)^2, max_abs_err = max |g - o|,
//                     sum_sq_oracle += o^2, max_abs_oracle = max |o|.
// The maxima are updated as the bits of non-negative doubles (they order like the values).
struct AkoOracleStats {
  unsigned long long count;
  unsigned long long got_nonfinite;
  unsigned long long oracle_nonfinite;
  double sum_sq_err;
  double max_abs_err;
  double sum_sq_oracle;
  double max_abs_oracle;
};
static_assert(sizeof(AkoOracleStats) == 56, "AkoOracleStats layout is part of the protocol");

// The elements of one compared unit in its storage (exec::ElementWalk on the host): element j
// (0 <= j < count, row-major over extents[0..rank)) is storage element
// offset + sum_k idx_k * strides[k]. A whole buffer of n elements: rank 1, extent n, stride 1.
// For membership tests (ako_check_outside) the host orders the dimensions by stride, largest
// first, with no zero stride, so that the greedy decomposition is exact. Layout (bytes): 0 offset,
// 8 count, 16 extents, 48 strides, 80 rank, 84 padding; 88 bytes.
struct AkoView {
  long long offset;
  unsigned long long count;
  long long extents[4];
  long long strides[4];
  int rank;                        // 1..4; unused dimensions are ignored
  int unused;
};
static_assert(sizeof(AkoView) == 88, "AkoView layout is part of the protocol");

// The writable views of one storage, for ako_check_outside (passed by value: 712 bytes of the
// kernel's parameter space).
struct AkoViewSet {
  AkoView views[8];
  int count;                       // 0..8
  int unused;
};
static_assert(sizeof(AkoViewSet) == 712, "AkoViewSet layout is part of the protocol");

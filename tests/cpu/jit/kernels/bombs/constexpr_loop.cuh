// A compile bomb: 4096 constant evaluations of a loop, each just under NVRTC's own limit on
// constexpr steps (2^18 iterations: about half a second each), so no single one is refused and
// the whole takes about half an hour. Only the compile time limit stops it.
__host__ __device__ constexpr unsigned long long spin(unsigned long long n) {
  unsigned long long s = 0;
  for (unsigned long long i = 0; i < n; ++i) s += (i * i) ^ (s >> 3);
  return s;
}
template <int I>
struct Spin {
  static constexpr unsigned long long v = spin((1ull << 18) + I);
};
template <int L, int H>
struct Sum {
  static constexpr unsigned long long v = Sum<L, (L + H) / 2>::v + Sum<(L + H) / 2 + 1, H>::v;
};
template <int I>
struct Sum<I, I> {
  static constexpr unsigned long long v = Spin<I>::v;
};
template <int N>
__global__ void constexpr_bomb_kernel(unsigned long long* out) {
  *out = Sum<0, N>::v;
}

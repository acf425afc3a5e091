// A compile bomb: deep template recursion that never repeats an instantiation (each level
// doubles M), so NVRTC's recursion-depth check never fires: 2^N distinct class templates,
// each remembered, until time or memory runs out.
template <int N, unsigned long long M>
struct Blowup {
  static constexpr unsigned long long v = Blowup<N - 1, 2 * M>::v + Blowup<N - 1, 2 * M + 1>::v;
};
template <unsigned long long M>
struct Blowup<0, M> {
  static constexpr unsigned long long v = M;
};
template <int N>
__global__ void template_bomb_kernel(unsigned long long* out) {
  *out = Blowup<N, 1>::v;
}

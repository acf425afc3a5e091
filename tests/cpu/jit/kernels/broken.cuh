// Deliberately broken: line 5 has a syntax error the tests look for.
template <typename T>
__global__ void broken_kernel(T* out) {
  const int i = threadIdx.x;
  out[i] = T(1) +* ;
}

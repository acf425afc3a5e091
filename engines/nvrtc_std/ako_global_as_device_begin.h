// Included right before an engine's header whose kernels ako calls from a kernel of its own
// (the engine's kernel takes one struct, or two launches make one baseline): `__global__` reads
// as `__device__` and `__grid_constant__` as nothing, so the engine's kernel bodies become device
// functions. ako_global_as_device_end.h, included right after, restores both. NVRTC has no
// push_macro, so the end header restores the definitions of NVRTC's builtin header. No include
// guard: each adapter includes the pair around its engine header.
#undef __global__
#undef __grid_constant__
#define __global__ __device__
#define __grid_constant__

// The end of ako_global_as_device_begin.h: `__global__` and `__grid_constant__` back to the
// definitions of NVRTC's builtin header. No include guard (see the begin header).
#undef __global__
#undef __grid_constant__
#define __global__ __location__(global)
#define __grid_constant__ __location__(grid_constant)

// A compile bomb: a file that #includes itself, 24 times per level, five levels deep
// (__INCLUDE_LEVEL__ stops it short of NVRTC's own "includes itself" check): 24^5, about
// eight million, inclusions to preprocess. The kernel is defined once, at the top level.
#if __INCLUDE_LEVEL__ == 0
__global__ void self_include_kernel(float* out) { *out = 1.f; }
#endif
#if __INCLUDE_LEVEL__ < 5
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#include "self_include.cuh"
#endif

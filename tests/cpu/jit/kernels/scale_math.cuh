#pragma once
// Local helper reached by a quoted include: part of scale.cuh's cache key.
__device__ __forceinline__ float ako_test_scale(float x, float s) { return x * s; }

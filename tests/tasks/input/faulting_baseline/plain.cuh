#pragma once
// The inplace_scale reference as an honest baseline (a file of its own: each baseline is its own
// NVRTC program), beside the broken ones of faulting_baseline and oob_baseline.
#include "../inplace_scale/scale.cuh"

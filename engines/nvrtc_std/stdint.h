#pragma once
// <stdint.h> for NVRTC: the C names of <cstdint> (see ako_nvrtc_std.h).
#include "cstdint"

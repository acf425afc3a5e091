#pragma once
// <stddef.h> for NVRTC: the C names of <cstddef> (see ako_nvrtc_std.h).
#include "cstddef"

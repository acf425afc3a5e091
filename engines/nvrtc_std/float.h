#pragma once
// <float.h> for NVRTC: see <cfloat>.
#include "cfloat"

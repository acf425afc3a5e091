#pragma once
// <assert.h> for NVRTC: see <cassert>.
#include "cassert"

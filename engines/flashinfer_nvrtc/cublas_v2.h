#pragma once
// <cublas_v2.h> for NVRTC (the real one declares host functions, which NVRTC refuses):
// trtllm/common/cudaUtils.h includes it but names nothing from it.

#pragma once
// Included by ako's FlashInfer adapters (input/<task>/peers/flashinfer_*.cuh) before FlashInfer's
// own headers, which are compiled as the flashinfer-python wheel ships them (scripts/fetch-peers.sh).
//
// Those headers keep host helpers beside the kernels. NVRTC refuses host functions, so they are
// compiled with -default-device, which makes every unannotated function a device function, and
// device code cannot have two things those helpers use (trtllm/common/cudaUtils.h:
// isCudaLaunchBlocking, isCapturing, syncAndCheck, getSMVersion, getMultiProcessorCount):
// - `throw`, through FLASHINFER_ERROR (exception.h), which FLASHINFER_CHECK expands to;
// - `thread_local` statics.
// No kernel calls these helpers and NVRTC never emits them; they only have to parse. So the error
// macro loses its throw (exception.h is include-guarded: its later inclusions keep this one) and
// thread_local is dropped. Kernel code is untouched.
#include "flashinfer/exception.h"

#undef FLASHINFER_ERROR
#define FLASHINFER_ERROR(message) ((void)(message))
#define thread_local

#include "measure/gpu/cupti_activity.hpp"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "common/error.hpp"

namespace ako::measure {

namespace {

// 4 MiB buffers, as nvbench and kineto use; CUPTI requires 8-byte alignment.
constexpr size_t kBufferBytes = size_t{4} << 20;
constexpr size_t kBufferAlign = 8;

// State shared with CUPTI's thread. CUPTI callbacks are plain functions, so it is global;
// the one-subscriber rule makes a single instance the only correct shape anyway.
struct Collected {
  std::mutex mutex;
  std::vector<KernelSpan> kernels;
  std::atomic<uint64_t> dropped{0};
};
Collected g_collected;
std::atomic<bool> g_active{false};

std::string cupti_text(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return "CUPTI error " + std::to_string(r);
  return s;
}

void cupti_check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) throw Error(std::string(call) + ": " + cupti_text(r));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t,
                               size_t valid_bytes) {
  std::vector<KernelSpan> spans;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    // A forced flush can hand out records of kernels still running: start 0 or end < start.
    if (k->start == 0 || k->end < k->start) continue;
    spans.push_back({k->start, k->end});
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
    g_collected.dropped += dropped;
  std::free(buffer);
  std::lock_guard lock(g_collected.mutex);
  g_collected.kernels.insert(g_collected.kernels.end(), spans.begin(), spans.end());
}

}  // namespace

CuptiActivity::CuptiActivity() {
  if (g_active.exchange(true)) throw Error("CUPTI activity is already subscribed in this process");
  try {
    cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                "cuptiActivityRegisterCallbacks");
    cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                "cuptiActivityEnable(CONCURRENT_KERNEL)");
    flush();  // another subscriber (ncu) lets Enable succeed but fails the flush
  } catch (...) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    g_active = false;
    throw;
  }
}

CuptiActivity::~CuptiActivity() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  take_kernels();
  g_active = false;
}

uint64_t CuptiActivity::now_ns() const {
  uint64_t t = 0;
  cupti_check(cuptiGetTimestamp(&t), "cuptiGetTimestamp");
  return t;
}

void CuptiActivity::flush() {
  cupti_check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
}

std::vector<KernelSpan> CuptiActivity::take_kernels() {
  std::lock_guard lock(g_collected.mutex);
  return std::exchange(g_collected.kernels, {});
}

uint64_t CuptiActivity::dropped_records() const { return g_collected.dropped.load(); }

}  // namespace ako::measure

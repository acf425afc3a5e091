#include "measure/gpu/cupti_activity.hpp"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <iterator>
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
  std::vector<ActivityRecord> records;
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
  std::vector<ActivityRecord> spans;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    ActivityRecord r;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      r.kind = ActivityRecord::Kind::kernel;
      r.start_ns = k->start;
      r.end_ns = k->end;
      r.grid = {k->gridX, k->gridY, k->gridZ};
      r.block = {k->blockX, k->blockY, k->blockZ};
      if (k->name) r.name = k->name;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      r.kind = ActivityRecord::Kind::memcpy;
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.bytes = m->bytes;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      r.kind = ActivityRecord::Kind::memset;
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.bytes = m->bytes;
    } else {
      continue;
    }
    // A forced flush can hand out records of work still running: start 0 or end < start.
    if (r.start_ns == 0 || r.end_ns < r.start_ns) continue;
    spans.push_back(std::move(r));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
    g_collected.dropped += dropped;
  std::free(buffer);
  std::lock_guard lock(g_collected.mutex);
  g_collected.records.insert(g_collected.records.end(), std::make_move_iterator(spans.begin()),
                             std::make_move_iterator(spans.end()));
}

}  // namespace

CuptiActivity::CuptiActivity() {
  if (g_active.exchange(true)) throw Error("CUPTI activity is already subscribed in this process");
  try {
    cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                "cuptiActivityRegisterCallbacks");
    cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                "cuptiActivityEnable(CONCURRENT_KERNEL)");
    cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityEnable(MEMCPY)");
    cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "cuptiActivityEnable(MEMSET)");
    flush();  // another subscriber (ncu) lets Enable succeed but fails the flush
  } catch (...) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    g_active = false;
    throw;
  }
}

CuptiActivity::~CuptiActivity() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  take_records();
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

std::vector<ActivityRecord> CuptiActivity::take_records() {
  std::lock_guard lock(g_collected.mutex);
  return std::exchange(g_collected.records, {});
}

uint64_t CuptiActivity::dropped_records() const { return g_collected.dropped.load(); }

}  // namespace ako::measure

#pragma once
// What ako hands the worker process, and what the worker sends back.
//
// ako (parent, no CUDA driver) resolves a task into concrete CaseJobs: every buffer with its
// element count, every launch with its cubin, lowered name, grid, block and arguments. The
// worker is therefore op-agnostic: it allocates, fills, poisons, launches, compares and times
// exactly what the job says; even the fp64 oracle of a reference_check case is a kernel of the
// task's own (tasks/README.md, "Oracle").
//
// Transport: the job is a JSON file (argv[1] of ako-worker); the worker writes one JSON
// object per line to stdout (WorkerEvent). A case whose "result" line never arrives failed:
// the parent's watchdog knows which case was running from the last "begin" line.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/arg.hpp"
#include "model/buffer.hpp"
#include "model/dtype.hpp"
#include "exec/protocol/launch_limit.hpp"
#include "result/run_result.hpp"

namespace ako::model {
void to_json(nlohmann::json& j, const Init& v);
void from_json(const nlohmann::json& j, Init& v);
void to_json(nlohmann::json& j, const Tolerance& v);
void from_json(const nlohmann::json& j, Tolerance& v);
void to_json(nlohmann::json& j, const ErrorFactor& v);
void from_json(const nlohmann::json& j, ErrorFactor& v);
void to_json(nlohmann::json& j, const View& v);
void from_json(const nlohmann::json& j, View& v);
void to_json(nlohmann::json& j, const Buffer& v);
void from_json(const nlohmann::json& j, Buffer& v);
void to_json(nlohmann::json& j, const Arg& v);
void from_json(const nlohmann::json& j, Arg& v);
}  // namespace ako::model

namespace ako::exec {

inline constexpr const char* kWorkerProtocol = "ako.worker/2";

// The task vocabulary (model/) as the protocol carries it.
using BufferRole = model::Role;
using InitSpec = model::Init;
using BufferJob = model::Buffer;
using ArgJob = model::Arg;
using Tolerance = model::Tolerance;
using ErrorFactor = model::ErrorFactor;

struct LaunchJob {
  std::string module;            // path of a cubin file
  std::string function;          // lowered (mangled) kernel name in that cubin
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0;     // dynamic shared memory
  std::vector<ArgJob> args;
};

struct TimingOptions {
  bool hot = false;              // keep L2 warm (no flush between samples)
  std::string l2_flush = "memset";  // cold: "memset" (L2 left dirty, NVBench's way) or "read" (left clean); l2_flush.hpp
  bool use_cupti = true;         // false: CUDA events (e.g. under ncu)
  int warmup_runs = 3;           // at least this many untimed launches ...
  double warmup_ms = 20.0;       // ... and at least this much wall time (per case: kernels timed together warm up together)
  int min_samples = 10;          // no stable stop before max(this, measure::kMinSamplesForCi), i.e. 20
  int max_samples = 2000;
  double max_time_s = 0.25;      // wall budget per timed kernel, then stop (stable = false)
  double target_ci_rel = 0.005;  // stop once the IQM's 95% CI half-width / IQM < this (measure/stats/stats.hpp)
};

// A baseline kernel of a compare case (tasks/README.md, "Baselines"): validated against the
// reference and timed interleaved with the solution; its outcome is reported, never judged.
struct BaselineJob {
  std::string name;
  LaunchJob launch;
};

struct CaseJob {
  int index = 0;
  std::string kind = "compare";  // "compare" or "reference_check" (reference vs the fp64 oracle)
  std::string label;             // for messages, e.g. "flux1-single bf16 weight"
  std::map<std::string, int64_t> dims;
  std::vector<BufferJob> buffers;
  LaunchJob reference;
  std::optional<LaunchJob> solution;      // absent for reference_check
  // The task's fp64 oracle, launched on fp64 copies of every floating buffer (integer buffers
  // as they are). reference_check: the reference's outputs are compared with its own under the
  // tolerance. compare: on every validation trial the solution's error against it is judged
  // with the reference's error as the yardstick (exec/worker/precision_check.hpp); absent, no
  // precision check.
  std::optional<LaunchJob> oracle;
  std::vector<BaselineJob> baselines;     // compare cases: the baselines that run here (may be empty)
  int trials = 3;                // fresh inputs per trial
  uint64_t seed = 0;             // trial t uses seed + t
  bool time = true;              // time reference and solution after validation
  bool time_reference = true;    // false: time the solution only (ako tune times the reference
                                 // once per shape, not once per variant)
  double bytes = 0;              // bytes the op must move, for the roofline
  // Also time a device-to-device copy of about bytes / 2 (so bytes read and written), interleaved with
  // the kernels under the same L2 flush: what a plain copy of this case's traffic takes at this
  // size (`ako run --size-copy`).
  bool time_size_copy = false;
};

// Lowered names of the harness's own device kernels (verify/gpu/support_kernels.cuh),
// keyed "fill_normal:bf16", "fill_uniform:fp16", "poison:bf16", "compare:fp32", ...
struct SupportModule {
  std::string module;
  std::map<std::string, std::string> functions;
};

struct WorkerJob {
  std::string protocol = kWorkerProtocol;
  SupportModule support;
  TimingOptions timing;
  std::string cache_dir;         // where the worker caches the measured copy bandwidth per device
  bool remeasure_bandwidth = false;
  LaunchLimit launch_limit;      // per-launch watchdog of the worker (exec/protocol/launch_limit.hpp)
  int max_input_sets = 8;        // input sets rotated while timing (cold L2), see timed_input_sets
  std::vector<CaseJob> cases;
};

// One stdout line of the worker.
struct WorkerEvent {
  std::string event;             // "device", "begin", "phase", "result", "baseline_failed"
                                 // (exec/protocol/baseline_blame.hpp), "fatal"
  int index = -1;                // case index for begin / phase / result
  std::string phase;             // "validate", "validate_baselines", "time" (phase events)
  std::optional<DeviceInfo> device;
  std::optional<CaseResult> result;   // the worker fills verdict, reason, fault, error, trials,
                                      // seed, reference_time, solution_time
  std::string message;           // fatal
  // device: seconds the worker's start-up steps took ("cuda_init", "await_job" when started
  // ahead of its job, "describe_device", "copy_bandwidth", "timer"), recorded in the run's `phases`.
  std::map<std::string, double> setup_s;
};

// Plain records: every field, by its own name; absent fields keep their defaults on reading.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingOptions, hot, l2_flush, use_cupti, warmup_runs, warmup_ms, min_samples,
                                                max_samples, max_time_s, target_ci_rel)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SupportModule, module, functions)

void to_json(nlohmann::json& j, const LaunchJob& v);
void from_json(const nlohmann::json& j, LaunchJob& v);
void to_json(nlohmann::json& j, const BaselineJob& v);
void from_json(const nlohmann::json& j, BaselineJob& v);
void to_json(nlohmann::json& j, const CaseJob& v);
void from_json(const nlohmann::json& j, CaseJob& v);
void to_json(nlohmann::json& j, const WorkerJob& v);
void from_json(const nlohmann::json& j, WorkerJob& v);
void to_json(nlohmann::json& j, const WorkerEvent& v);
void from_json(const nlohmann::json& j, WorkerEvent& v);

}  // namespace ako::exec

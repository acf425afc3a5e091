#pragma once
// The result of `ako run`: plain value types that cross every stage boundary and are
// serialised to the versioned JSON documented in harness/result/SCHEMA.md. iterate, gate,
// tune and port read these back, so the CPU tests can feed them recorded results.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ako {

inline constexpr const char* kRunResultSchema = "ako.run/1";

// Compiler resource report of one kernel (ptxas log; -1 where unknown).
struct KernelResources {
  int registers = -1;          // registers per thread
  int spill_stores = -1;       // bytes
  int spill_loads = -1;        // bytes
  int stack_bytes = -1;        // stack frame bytes (local arrays and spills)
  int shared_bytes = -1;       // static shared memory bytes
  int barriers = -1;
  int constant_bytes = -1;     // cmem[0]
};

// Statistics of one timed kernel (times in microseconds).
struct TimingStats {
  std::string method;          // "cupti" (activity records) or "events" (fallback)
  bool cold_l2 = true;         // L2 flushed before each sample
  std::string l2_flush;        // how: "read" (a 2x L2 buffer read, L2 left clean), "memset" (left dirty), "" hot
  int samples = 0;
  int warmup = 0;
  // The centre: the interquartile mean (the mean of the samples between the 25th and 75th
  // percentiles). Robust to the tail like the median, but it converges like a mean where a
  // kernel times in two modes, where the median does not (measure/stats/stats.hpp says why).
  // Every use of "the kernel's time" (speedups, % of copy, the gate, the tuner) reads it.
  double iqm_us = 0;
  double ci_rel = 0;           // half-width of the IQM's 95% confidence interval (Tukey-McLaughlin) / IQM
  double median_us = 0, min_us = 0, max_us = 0, mean_us = 0, stdev_us = 0;
  double median_ci_rel = 0;    // half-width of the median's 95% CI (order statistics) / median
  // Read from a result written before the IQM (no iqm_us): iqm_us and ci_rel then hold the
  // median and its CI, so old results compare as they did; never written (iqm_us stays absent).
  bool centre_is_median = false;
  bool stable = false;         // stopped on the noise criterion (not on the time budget)
  double kernels_per_sample = 0;  // kernel records CUPTI saw per sample (all streams)
  // CUPTI launch enforcement: empty when every sample held exactly the declared launch (count,
  // grid, block) and no memcpy/memset; otherwise what was seen, in words (all of it is charged).
  std::string launch_audit;
};

// One compute-sanitizer re-run of a failing case (`ako run --sanitize`).
struct SanitizerReport {
  std::string tool;              // memcheck, racecheck, initcheck
  int exit_code = -1;            // of compute-sanitizer; -1: did not finish (timed out, not started)
  int errors = -1;               // "ERROR SUMMARY: N errors"; -1 when the report has no summary
  std::string report;            // path of the full report
  std::string excerpt;           // its first lines (errors first), or why it did not run
};

// Candidate output against the reference output, over every trial.
struct ErrorStats {
  double max_abs = 0, max_rel = 0;
  uint64_t checked = 0;        // elements compared
  uint64_t mismatches = 0;     // |got - want| > atol + rtol * |want|
  uint64_t nonfinite = 0;      // NaN/Inf in the candidate where the reference is finite
  int64_t worst_index = -1;    // flat index of the largest abs error (or first non-finite)
  double worst_got = 0, worst_want = 0;
  std::string buffer;          // output buffer the worst element belongs to
};

enum class Verdict { correct, incorrect, failed, skipped };

// The SM clock over a case's timed samples: a probe kernel between sample batches reads
// cycles against %globaltimer (NVBench's throttle rule, cuda_tech.md section 4). Every kernel
// timed for the case was sampled interleaved with the others, so one report covers them all.
struct ClockReport {
  double rated_mhz = 0;          // CU_DEVICE_ATTRIBUTE_CLOCK_RATE
  double min_mhz = 0, median_mhz = 0, max_mhz = 0;
  int probes = 0;
  bool throttled = false;        // some probe read under kThrottleFraction of the rated clock
};
inline constexpr double kThrottleFraction = 0.75;

// A baseline (a peer kernel such as the engine's own) in one case: validated against the
// reference like the solution and timed interleaved with it, but never the case's verdict.
struct BaselineResult {
  std::string name;
  Verdict verdict = Verdict::skipped;  // its own correctness against the reference
  std::string reason;            // why incorrect / failed / skipped (not installed, not applicable, ...)
  std::string fault;
  ErrorStats error;
  std::optional<TimingStats> time;
  double gbps = 0;               // case bytes / its IQM
  double pct_copy_bw = 0;
  double speedup = 0;            // its IQM / the solution's IQM (> 1: the solution is faster)
};

// The solution's error against the task's fp64 oracle on the full shape, judged with the
// reference's own error as the yardstick (tasks/README.md, "Precision against the oracle"):
// the compared unit and trial that came closest to its limit (or broke it first).
struct PrecisionReport {
  std::string buffer;            // the compared unit's buffer
  int trial = 0;                 // 1-based validation trial
  double solution_rms = 0, solution_max = 0;     // RMS and max abs error against the oracle
  double reference_rms = 0, reference_max = 0;
  double floor_rms = 0, floor_max = 0;           // u(dtype) / 4 x RMS (max) |oracle|
  double rms_factor = 0, max_factor = 0;         // the buffer's error_factor
  double rms_ratio = 0, max_ratio = 0;           // solution / max(reference, floor)
  int trials_checked = 0;        // validation trials the check ran on
  double check_s = 0;            // wall seconds the check added to the case (allocation, copies, oracle, reductions)
  // check_s by step: "allocate" (placing the copies, poisoning the oracle's outputs), "inputs"
  // (fp64 copies of the inputs), "oracle", "errors" (the reductions against it); each step ends
  // in a stream synchronisation, so they add up.
  std::map<std::string, double> check_parts_s;
};

struct CaseResult {
  int index = 0;
  std::string kind = "compare";  // "compare" (solution vs reference) or "reference_check" (reference vs the task's fp64 oracle)
  std::string shape;             // shape name from the task, e.g. "flux1-single"
  std::map<std::string, int64_t> dims;
  std::string dtype;
  std::map<std::string, bool> flags;     // boolean variant axes, e.g. {"weight": true}
  std::map<std::string, std::string> axes;  // typed variant axes, values as text, e.g. {"scale_layout": "bf1c"}
  std::map<std::string, int64_t> params; // solution's tunable parameters used for this case
  std::string config_class;              // which config class supplied the params
  Verdict verdict = Verdict::skipped;
  std::string reason;            // why incorrect / failed / skipped, in words
  std::string fault;             // failed only: illegal_address, misaligned, trap, illegal_instruction,
                                 // out_of_resources, launch_failed, timeout, worker_crash, cuda_error,
                                 // out_of_bounds_write, undeclared_work (SCHEMA.md has the full list)
  ErrorStats error;
  int trials = 0;
  uint64_t seed = 0;
  std::optional<TimingStats> reference_time, solution_time;
  double bytes = 0;              // bytes the op must move (each input read once, each output written once)
  double elements = 0;           // elements of the largest output (task::Case::elements)
  double speedup = 0;            // reference IQM / solution IQM
  double gbps = 0;               // bytes / solution IQM
  double pct_copy_bw = 0;        // gbps / measured device copy bandwidth * 100
  // `ako run --size-copy`: a device-to-device copy timed interleaved with the kernels, moving
  // size_copy_bytes (bytes / 2 rounded to whole 64 KiB, read and written), and the solution's
  // rate as a percentage of the copy's: (bytes / solution IQM) / (size_copy_bytes / copy IQM).
  std::optional<TimingStats> size_copy_time;
  double size_copy_bytes = 0;
  double pct_size_copy = 0;
  int input_sets = 0;            // input sets the timed samples rotated through (0: not timed)
  std::vector<SanitizerReport> sanitizer;  // --sanitize re-runs of a failing case
  std::vector<BaselineResult> baselines;   // one per task baseline (compare cases), spec order
  std::optional<ClockReport> clock;        // the SM clock while this case was timed
  std::optional<PrecisionReport> precision;  // compare cases with an oracle: the precision check
};

struct DeviceInfo {
  std::string name;              // "NVIDIA H100 80GB HBM3"; empty when no GPU was used
  std::string arch;              // "sm_90a"
  std::string uuid;
  int sm_count = 0;
  int rated_sm_clock_mhz = 0;    // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (the clock-throttle check's yardstick)
  int64_t l2_bytes = 0;
  int driver_version = 0;        // cuDriverGetVersion, e.g. 13000
  std::string cuda_version;      // toolkit the binaries were built with
  std::string nvrtc_version;
  double copy_bandwidth_gbs = 0; // device-to-device copy, bytes read + written per second / 1e9
  std::string copy_bandwidth_source;  // "measured" or "cached <file>"
};

struct KernelBuild {
  std::string role;              // "reference", "solution" or "support"
  std::string file;              // source, relative to the repository root
  std::string name_expression;   // e.g. "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 1>"
  std::string lowered_name;
  std::string arch;
  KernelResources resources;
  bool cache_hit = false;
  double compile_ms = 0;         // 0 on a cache hit
};

// One finding of the static checks on a candidate's compiled code (harness/verify/static).
struct StaticFinding {
  std::string check;             // device_globals, clock, device_launch, device_heap, l2_persist,
                                 // l2_discard, local_memory
  std::string file;              // the candidate's source, as builds name it
  std::string kernel;            // name expression (or the PTX function it was found in)
  std::string what;              // what the compiled code does, e.g. "reads %globaltimer"
  std::string why;               // why ako refuses it
  bool allowed = false;          // the task's solution.allow lists the check: reported, not refused
};

// Which per-device config file supplied the solution's params (task/device_config.hpp).
struct ConfigUsed {
  std::string device;            // the device whose config was asked for; empty with device_source "none"
  std::string device_source;     // "gpu" (this machine's), "--device", "baseline entry" (ako gate), "none"
  std::string entry;             // the file used: its device name, "default" (default.json) or "none" (no file)
  std::string file;              // relative to the workspace root; empty when none
  bool fallback = false;         // the device has no config of its own (default.json or none instead)
  std::string message;           // the one line ako prints about it
};

struct Summary {
  bool compiled = false;
  int cases = 0, correct = 0, incorrect = 0, failed = 0, skipped = 0;
  // Sums of IQMs over the cases where both kernels were timed and the solution is correct.
  double runtime_us = 0, ref_runtime_us = 0;
  double speedup = 0;            // ref_runtime_us / runtime_us
  double geomean_speedup = 0;    // geometric mean of per-case speedups
};

struct RunResult {
  std::string schema = kRunResultSchema;
  std::string ako_version;
  std::string task;
  std::string started_at;        // ISO 8601 UTC
  double wall_s = 0;
  // Where the wall time went, in seconds (SCHEMA.md); empty when the run did not reach the GPU.
  nlohmann::json phases = nlohmann::json::object();
  nlohmann::json options = nlohmann::json::object();  // the options the run used
  DeviceInfo device;
  ConfigUsed config;             // the solution's config file and device entry
  std::vector<KernelBuild> builds;
  std::vector<StaticFinding> static_findings;  // candidate's compiled code; any not allowed refuses it
  std::vector<CaseResult> cases;
  Summary summary;
  std::string error;             // set when the run could not produce verdicts (exit 2)
};

// Verdict helpers.
const char* verdict_name(Verdict v);
Verdict parse_verdict(const std::string& s);

// "median" when any timing of the run was read from a result written before the IQM (its
// centre is the median), else "IQM": what reports call the times they show.
std::string timing_centre_name(const RunResult& r);

// Recompute the summary from the cases (compiled flag is kept).
void summarize(RunResult& r);

// The run compiled but not one case got a verdict (no GPU, or the worker never ran a case):
// nothing was measured, which is neither correct nor failed.
bool nothing_measured(const RunResult& r);

// JSON (throws ako::Error on a wrong schema version or malformed document).
nlohmann::json to_json(const RunResult& r);
RunResult run_result_from_json(const nlohmann::json& j);

// Plain records: every field, by its own name; absent fields keep their defaults on reading.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelResources, registers, spill_stores, spill_loads,
                                                stack_bytes, shared_bytes, barriers, constant_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SanitizerReport, tool, exit_code, errors, report, excerpt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ClockReport, rated_mhz, min_mhz, median_mhz, max_mhz, probes, throttled)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceInfo, name, arch, uuid, sm_count, rated_sm_clock_mhz, l2_bytes,
                                                driver_version,
                                                cuda_version, nvrtc_version, copy_bandwidth_gbs,
                                                copy_bandwidth_source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelBuild, role, file, name_expression, lowered_name, arch,
                                                resources, cache_hit, compile_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigUsed, device, device_source, entry, file, fallback, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StaticFinding, check, file, kernel, what, why, allowed)

// TimingStats: every field by its own name except centre_is_median, which is how a document
// without iqm_us (written before the IQM) reads: its median and median CI as the centre.
void to_json(nlohmann::json& j, const TimingStats& v);
void from_json(const nlohmann::json& j, TimingStats& v);
void to_json(nlohmann::json& j, const ErrorStats& v);
void from_json(const nlohmann::json& j, ErrorStats& v);
void to_json(nlohmann::json& j, const PrecisionReport& v);
void from_json(const nlohmann::json& j, PrecisionReport& v);
void to_json(nlohmann::json& j, const BaselineResult& v);
void from_json(const nlohmann::json& j, BaselineResult& v);
void to_json(nlohmann::json& j, const CaseResult& v);
void from_json(const nlohmann::json& j, CaseResult& v);

}  // namespace ako

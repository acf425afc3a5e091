#pragma once
// The gate's baseline (schema ako.baseline/1, documented in harness/gate/BASELINE.md): what a
// committed, trusted run looked like, per task, case and compiled kernel. A baseline made
// without a GPU holds resource budgets only (device is empty, no case has timings); it is
// valid and the gate then says that timings were not compared.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ako::gate {

inline constexpr const char* kBaselineSchema = "ako.baseline/1";
inline constexpr double kDefaultThresholdPct = 3.0;

// The GPU the timings were measured on; absent in a resources-only baseline.
struct BaselineDevice {
  std::string name;                 // "NVIDIA H100 80GB HBM3"
  std::string arch;                 // "sm_90a"
  int driver_version = 0;           // 13000
  int sm_count = 0;
  double copy_bandwidth_gbs = 0;
};

// The part of TimingStats a comparison needs.
struct BaselineTiming {
  double median_us = 0;
  double ci_rel = 0;                // half-width of the median's 95% CI / median
  int samples = 0;
  std::string method;               // "cupti" or "events": times of different methods are not compared
  bool cold_l2 = true;              // L2 flushed per sample: cold and hot times are not compared
};

struct BaselineCase {
  std::string kind = "compare";     // or "reference_check" (verdict only)
  std::string verdict = "correct";
  std::optional<BaselineTiming> solution, reference;
};

// Upper bounds per kernel, -1 where ptxas reported nothing (then the check is skipped).
struct ResourceBudget {
  int registers = -1;
  int spill_stores = -1;            // bytes
  int spill_loads = -1;             // bytes
  int stack_bytes = -1;             // local memory frame: spills and dynamically indexed arrays
  int shared_bytes = -1;            // static shared memory
};

struct BaselineKernel {
  std::string file;                 // for people reading the file; not part of the key
  ResourceBudget budget;
};

struct BaselineTask {
  std::optional<double> threshold_pct;                // overrides the baseline's default
  std::map<std::string, BaselineCase> cases;          // by Case::label(), e.g. "flux1-single bf16 weight"
  // kernels[role][name expression], role "reference" or "solution"
  std::map<std::string, std::map<std::string, BaselineKernel>> kernels;
};

struct Baseline {
  std::string schema = kBaselineSchema;
  std::string written_by;           // "ako 0.1.0"
  std::string updated_at;           // ISO 8601 UTC
  std::string arch;                 // what the budgets were compiled for
  std::string cuda_version;         // CUDA headers the kernels were compiled against
  std::string nvrtc_version;        // the compiler that produced the budgets
  std::optional<BaselineDevice> device;  // absent: resources-only baseline
  double threshold_pct = kDefaultThresholdPct;
  std::map<std::string, BaselineTask> tasks;

  bool has_timings() const { return device.has_value(); }
};

// JSON. Reading checks the schema (another version is refused with the fix) and every field's
// type; a malformed document throws ako::Error naming the field.
nlohmann::json to_json(const Baseline& b);
Baseline baseline_from_json(const nlohmann::json& j);

// Files. load_baseline throws ako::Error naming the file; save_baseline writes atomically.
Baseline load_baseline(const std::filesystem::path& file);
void save_baseline(const std::filesystem::path& file, const Baseline& b);

}  // namespace ako::gate

#pragma once
// The gate's baseline (schema ako.baseline/2, documented in harness/gate/BASELINE.md): what a
// committed, trusted run looked like, one entry per device (timings are only comparable on
// the device they were measured on, and each device has its own tuned config), each per task,
// case and compiled kernel. An entry made without a GPU holds resource budgets only (device is
// empty, no case has timings); it is valid and the gate then says that timings were not
// compared. An ako.baseline/1 file (one device) is read as a single entry.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ako::gate {

inline constexpr const char* kBaselineSchema = "ako.baseline/2";
inline constexpr const char* kBaselineSchemaV1 = "ako.baseline/1";  // read as one entry
inline constexpr const char* kResourcesOnlyEntry = "default";       // key of a v1 file without a device
inline constexpr double kDefaultThresholdPct = 3.0;

// The GPU the timings were measured on; absent in a resources-only baseline.
struct BaselineDevice {
  std::string name;                 // "NVIDIA H100 80GB HBM3"
  std::string arch;                 // "sm_90a"
  int driver_version = 0;           // 13000
  int sm_count = 0;
  double copy_bandwidth_gbs = 0;
};

// The part of TimingStats a comparison needs. The centre is the IQM (TimingStats::iqm_us);
// an entry written before the IQM has none (iqm_us 0) and is compared on its median.
struct BaselineTiming {
  double median_us = 0;
  double ci_rel = 0;                // half-width of the IQM's 95% CI / IQM (the median's, before the IQM)
  int samples = 0;
  std::string method;               // "cupti" or "events": times of different methods are not compared
  bool cold_l2 = true;              // L2 flushed per sample: cold and hot times are not compared
  double iqm_us = 0;                // 0: timed before the IQM (no "iqm_us" in the file)

  bool before_iqm() const { return iqm_us <= 0; }
  double centre_us() const { return before_iqm() ? median_us : iqm_us; }
};

struct BaselineCase {
  std::string kind = "compare";     // or "reference_check" (verdict only)
  std::string verdict = "correct";
  std::optional<BaselineTiming> solution, reference;
  // The task's baselines (peer kernels such as the engine's own) as timed in that run, by name:
  // kept for the record and for reports, never compared or judged by the gate.
  std::map<std::string, BaselineTiming> peers;
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

// One device's entry: what a whole ako.baseline/1 file held.
struct Baseline {
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

// True when some solution timing of the entry has no IQM (written before ako timed with it).
bool timed_before_iqm(const Baseline& b);

// The whole file: entries by device name (the CUDA name the timings were measured on). An entry
// without a device (budgets only) may be keyed by any device name whose config it budgets, or
// "default" (default.json).
struct BaselineFile {
  std::map<std::string, Baseline> devices;
  std::string read_schema = kBaselineSchema;  // what the file said: kBaselineSchemaV1 for an old file

  // The entry for a device name (spaces and `_` are the same), nullptr when there is none.
  const Baseline* find(const std::string& device) const;
  // The key of that entry, or `device` with `_` as spaces when there is none.
  std::string key_of(const std::string& device) const;
  // "NVIDIA H100 80GB HBM3, default" (or "none") for messages.
  std::string entry_names() const;
};

// JSON of one entry (no schema field: the file has it). Reading checks every field's type; a
// malformed document throws ako::Error naming the field from `where` on ("devices.X.tasks...").
nlohmann::json to_json(const Baseline& b);
Baseline baseline_from_json(const nlohmann::json& j, const std::string& where = "");

// The file. Reading checks the schema (v2, or v1 read as one entry keyed by its device name or
// "default"; anything else is refused with the fix) and that an entry with a device is keyed
// by that device's name.
nlohmann::json to_json(const BaselineFile& f);
BaselineFile baseline_file_from_json(const nlohmann::json& j);

// Files. load_baseline throws ako::Error naming the file; save_baseline writes ako.baseline/2
// atomically.
BaselineFile load_baseline(const std::filesystem::path& file);
void save_baseline(const std::filesystem::path& file, const BaselineFile& f);

}  // namespace ako::gate

#pragma once
// A task spec: tasks/<name>/task.json, format documented in tasks/README.md.
// Parsing validates everything up front; a malformed spec throws ako::SpecError naming the
// file, the field (as a JSON path, e.g. "solution.params.BLOCK") and what is expected.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/axis.hpp"
#include "model/buffer.hpp"
#include "model/dtype.hpp"

namespace ako::task {

inline constexpr const char* kTaskSchema = "ako.task/2";
inline constexpr const char* kConfigSchema = "ako.config/1";

// A buffer's "init" as written: integer bounds are expressions evaluated per case.
struct InitSpec {
  std::string dist = "normal";           // normal (mean a, std b), uniform [a, b), range [low, high)
  double a = 0.0, b = 1.0;
  std::string low, high;                 // range only: integer expressions over dims and axes
};

// A buffer's "view": a window into another buffer's allocation (model::View, evaluated).
struct ViewSpec {
  std::string of;                        // the storage buffer's name (not itself a view)
  std::string offset = "0";              // elements, integer expression
  std::vector<std::string> strides;      // elements, one per shape extent; 0 broadcasts
};

struct BufferSpec {
  std::string name;
  model::Role role = model::Role::in;
  // "$dtype" (the case's dtype), a dtype name (bf16 fp16 fp32 i32 i64), or "$<axis>" for a
  // string axis whose values are dtype names or "same" (= the case's dtype).
  std::string dtype = "$dtype";
  std::vector<std::string> shape;        // integer expressions over dims and axes
  std::string present_if;                // empty: always; else a boolean expression over flags, axes, dims
  InitSpec init;
  std::map<DType, model::Tolerance> tolerance;  // per-buffer overrides of the task's (out / inout)
  std::map<DType, model::ErrorFactor> error_factor;  // per-buffer overrides of the task's (out / inout)
  std::optional<ViewSpec> view;
};

enum class ScalarType { i32, i64, f32 };

struct ScalarSpec {
  std::string name;
  ScalarType type = ScalarType::i32;
  std::string value;                     // expression over dims (i32/i64) or a number (f32)
};

struct TunableParam {
  std::string name;
  std::vector<int64_t> values;           // allowed values, in the order given
};

struct KernelSpec {
  std::filesystem::path file;            // relative to the repository root
  std::string kernel;                    // name expression template: "rmsnorm<{T}, {weight}, {BLOCK}>"
                                         // placeholders: {T} (CUDA type of the dtype), {dtype},
                                         // each flag (true/false), each param, each dim
  std::vector<std::string> args;         // buffer or scalar names, in kernel parameter order
  std::vector<std::string> grid;         // 1-3 integer expressions
  std::vector<std::string> block;        // 1-3 integer expressions
  std::string shared_bytes = "0";        // integer expression (dynamic shared memory)
  std::vector<TunableParam> params;      // solution only, in name order (JSON objects are unordered)
  std::vector<std::string> constraints;  // boolean expressions over params, dims, flags and axes
  std::filesystem::path config;          // solution only: the folder of per-device tuned configs (tasks/README.md)
  std::vector<std::string> allow;        // solution only: static checks the task permits (kStaticChecks)
};

// A named peer kernel timed beside the solution (tasks/README.md, "Baselines"): typically the
// kernel the engine ships today. Compiled and validated like the solution and timed
// interleaved with it, shown as columns, never judged as the candidate: its failure or its
// absence (requires_file missing) is reported in its column and the run goes on.
struct BaselineSpec {
  std::string name;                      // identifier, column title ("flashinfer")
  std::string description;
  KernelSpec kernel;                     // file, kernel, args, grid, block, shared_bytes
  std::vector<std::filesystem::path> include_dirs;  // relative to the root; -I for its program
  std::vector<std::string> options;      // further NVRTC options as the peer is built (-default-device, ...)
  std::filesystem::path requires_file;   // relative; missing: the baseline is absent, said why
  std::string requires_hint;             // how to get it ("run scripts/fetch-peers.sh")
  std::string when;                      // boolean expression over dims and flags; empty: always
  std::vector<std::pair<std::string, std::string>> lets;  // NAME = integer expression, in order
  std::vector<ScalarSpec> scalars;       // its own scalar arguments (e.g. FlashInfer's weight_bias)
};

struct ShapeSpec {
  std::string name;
  std::map<std::string, int64_t> dims;
  std::string source;                    // where the shape comes from (model, resolution)
};

// One class of a solution's tuned config (solution.config, schema ako.config/1): the
// parameters to use for the cases its `when` selects. The first class whose `when` holds wins.
struct ConfigClass {
  std::string name;
  std::string when;                      // boolean expression over dims and flags; empty: always
  std::map<std::string, int64_t> params; // every declared param (missing ones: first allowed value)
  // Shapes `ako tune` measured these params on (name + dims); empty: not tuned (hand-written
  // or kept). See task/config.hpp for when a shape borrows the nearest tuned class.
  std::vector<ShapeSpec> tuned_on;
  // `ako tune`'s mark on a class whose search stopped at its time budget (the config's
  // "partial": variants evaluated, whether the params before were kept, how much faster the
  // winner so far was). Kept as read so that a later tune that leaves the class alone keeps it.
  struct Partial {
    int64_t evaluated = 0;
    bool kept = false;
    double winner_faster_pct = 0;
  };
  std::optional<Partial> partial;
};

// One file of the solution's config folder: a device's tuned config (device_name=<name>.json)
// or default.json, parsed and checked at load time (task/device_config.hpp selects one).
struct DeviceConfig {
  std::string entry;                     // the device name ("NVIDIA H100 80GB HBM3"), or "default"
  std::filesystem::path file;            // relative to the root, e.g. solution/rmsnorm/configs/default.json
  std::string source;                    // free text: how the config was produced
  std::vector<ConfigClass> classes;
};

struct TaskSpec {
  std::filesystem::path file;            // the task.json this came from
  std::filesystem::path root;            // repository root that relative paths resolve against
  std::string name;
  std::string description;
  std::vector<std::string> dims;         // dimension names, e.g. {"rows", "cols"}
  std::vector<DType> dtypes;
  std::vector<std::string> flags;        // boolean variant axes, e.g. {"weight"}
  std::vector<model::Axis> axes;         // typed variant axes (string or integer values)
  // Boolean expression over dims, flags and axes; the combinations where it is false are not
  // cases (empty: every combination is one). tasks/README.md, "Which combinations run".
  std::string when;
  std::vector<ShapeSpec> shapes;         // the benchmark shape set
  std::vector<ShapeSpec> check_shapes;   // small shapes where the reference meets the fp64 oracle
  std::vector<BufferSpec> buffers;
  std::vector<ScalarSpec> scalars;
  KernelSpec reference;
  KernelSpec oracle;                     // fp64 ground truth of the reference (tasks/README.md, "Oracle")
  KernelSpec solution;
  std::vector<BaselineSpec> baselines;   // peers timed beside the solution (may be empty)
  std::map<DType, model::Tolerance> tolerance;  // one entry per floating dtype in `dtypes` (defaults filled in)
  // The precision check's factors per floating dtype (tasks/README.md, "Precision against the
  // oracle"); a dtype without an entry takes default_error_factor.
  std::map<DType, model::ErrorFactor> error_factor;
  int trials = 3;
  nlohmann::json port = nlohmann::json::object();  // port target, read by `ako port`
  // Every file of the solution's config folder, read at load time: device files in name
  // order, then default.json. Empty when the spec names no folder or it does not exist yet.
  std::vector<DeviceConfig> configs;
  // The config in use: default.json after loading; use_device_config (task/device_config.hpp)
  // installs a device's. config_present is false when there is none (every case then uses the
  // first allowed values).
  bool config_present = false;
  std::filesystem::path config_file;     // relative to the root; empty when none
  std::string config_source;             // free text: how the config was produced
  std::vector<ConfigClass> config_classes;
};

// The static checks on a candidate's compiled code that solution.allow may name
// (harness/verify/static/static_check.hpp; a test keeps the two lists equal).
inline const std::vector<std::string> kStaticChecks = {"device_globals", "clock",      "device_launch", "device_heap",
                                                      "l2_persist",     "l2_discard", "local_memory"};

// Every name an expression of the spec may use beyond params and lets: dims, flags, axes, and
// each string axis value quoted ('bc'), which check_expression reads as the allowed literals.
std::vector<std::string> expression_names(const TaskSpec& spec);

// Tolerance used for a dtype the spec's "tolerance" does not list: 1e-2/1e-2 for bf16 and
// fp16, 1e-5/1e-5 for fp32.
model::Tolerance default_tolerance(DType dtype);

// Factors used for a dtype the spec's "error_factor" does not list: RMS 1.25 and max 3 for bf16
// and fp16 (a kernel that computes in fp32 and rounds once scores 1.00 on both; one more
// rounding to T scores about 1.4 in RMS), RMS 16 and max 32 for fp32 (whose error is the fp32
// arithmetic's own, which any reordering of a sum changes: a sequential sum of 6144 elements
// scores up to about 7 and 9; a 16-bit accumulation scores over 1000).
model::ErrorFactor default_error_factor(DType dtype);

// Parse and validate a config document against a parsed spec (its params, dims and flags).
// `file` names the config in errors. Returns the classes; `source` receives the free text.
std::vector<ConfigClass> parse_config(const nlohmann::json& doc, const std::filesystem::path& file,
                                      const TaskSpec& spec, std::string* source = nullptr);

// Parse and validate a spec document. `file` is used in error messages and to resolve paths.
TaskSpec parse_task(const nlohmann::json& doc, const std::filesystem::path& file,
                    const std::filesystem::path& root);

// Load tasks/<name>/task.json under `root` (or `name` itself when it is a path to a file).
TaskSpec load_task(const std::filesystem::path& root, const std::string& name);

// Names of the tasks under root/tasks, sorted.
std::vector<std::string> list_tasks(const std::filesystem::path& root);

}  // namespace ako::task

#pragma once
// From a spec to concrete cases: shape x dtype x flag combination, each with the solution's
// parameters (from its config file, else the first allowed values) and both kernels'
// instantiation and launch geometry evaluated. Pure CPU; no compilation here.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/arg.hpp"
#include "model/axis.hpp"
#include "model/buffer.hpp"
#include "task/expr.hpp"
#include "task/spec.hpp"

namespace ako::task {

// One evaluated kernel instance for one case.
struct KernelInstance {
  std::filesystem::path file;            // absolute path of the source
  std::string name_expression;           // placeholders substituted
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0;
  std::vector<model::Arg> args;          // buffers resolved to indices into Case::buffers
};

// One baseline (spec.baselines) for one compare case: its instance, or why it does not run.
struct BaselineInstance {
  std::string name;
  std::optional<KernelInstance> kernel;  // absent: not applicable to this case, or not installed
  std::string absent_reason;             // why absent, in words (shown in the baseline's column)
  std::vector<std::string> options;      // its NVRTC options: -I<absolute include dir>, then the spec's options
};

struct Case {
  std::string kind = "compare";          // or "reference_check"
  const ShapeSpec* shape = nullptr;
  DType dtype = DType::bf16;
  std::map<std::string, bool> flags;
  std::map<std::string, model::AxisValue> axes;  // one value per typed axis of the spec
  std::map<std::string, int64_t> params;  // solution parameters (empty for reference_check)
  std::string config_class;               // config class the params came from ("default", ...)
  std::string config_note;                // shape not tuned: which tuned class stands in (task/config.hpp)
  std::vector<model::Buffer> buffers;
  std::map<std::string, double> scalars;  // every scalar's value
  KernelInstance reference;
  // The fp64 oracle ({T} = double): the reference's ground truth in a reference_check case, the
  // precision check's in a compare case (tasks/README.md, "Precision against the oracle").
  std::optional<KernelInstance> oracle;
  std::optional<KernelInstance> solution;
  std::vector<BaselineInstance> baselines;  // compare cases: one per spec baseline, in spec order
  // Bytes the op must move, each buffer at its own size and dtype: in read once, out written
  // once, inout read and written; a view counts its distinct elements (a broadcast one
  // once), a storage reached only through views counts through them.
  double bytes = 0;
  // Elements of the largest output: each out / inout buffer at its own count, a writable view
  // by its own extents (a storage written only through views is not counted itself). The size
  // of the activation the op produces (tokens x hidden for rmsnorm, rope's q, qknorm's q view),
  // whatever else the shape's dims hold (rope's cache rows): what scripts/compare_torch.py sizes
  // the copy-bandwidth bar by.
  double elements = 0;
  // "<shape> <dtype>" then each flag as "<flag>" or "no<flag>", then each typed axis as
  // "<axis>=<value>", both in name order: "flux1-single bf16 weight", "wan bf16
  // scale_layout=bf1c". Stable: results, logs and baselines key on it (gate/case_key.hpp).
  std::string label() const;
  std::string label_text;                // set by expand_cases
};

// The expression environment of every variant (flag and axis combination, expand_cases'
// order) without dims: flags 0 / 1, integer axes as themselves, string axes as string_value.
// What must hold for every variant (tuning constraints, config class choice) iterates these.
std::vector<std::map<std::string, int64_t, std::less<>>> variant_envs(const TaskSpec& spec);

// The environment a config class's `when` is evaluated in: a case's dims as the engine's entry
// point sees them (task/entry_view.hpp: a dim no tensor of the case is shaped by is 1, as the
// port passes it), its flags and axes, and `dtype` as the string value of its name
// (`dtype == 'fp16'`).
ExprEnv class_env(const TaskSpec& spec, ExprEnv env, DType dtype);

// Whether a `--where` expression (ako run / compile / tune) holds in env; empty holds always. A
// failure to evaluate is an Error that names the expression as --where.
bool where_holds(const std::string& where, const ExprEnv& env);

// One flag, axis and dtype combination the task runs on a compare shape (its `when`), without
// params: the environment a config class's `when` is evaluated in (class_env) and its case
// label, in expand_cases' order. What `ako tune` splits a shape's cases among config classes by
// (search/tuner.hpp).
struct ShapeVariant {
  ExprEnv env;
  std::vector<std::string> labels;
};
std::vector<ShapeVariant> shape_variant_cases(const TaskSpec& spec, const ShapeSpec& shape);

// Unknown shape names and dtypes the spec lacks are errors (ako::Error listing the known ones).
// The shape filter selects benchmark shapes (compare cases); reference_check cases are governed
// by with_checks and the dtype filter only.
struct CaseFilter {
  std::vector<std::string> shapes;       // shape names; empty = all
  std::vector<DType> dtypes;             // empty = all of the spec's
  // Only the cases this expression holds for, over a case's dims, flags, axes and dtype (as a
  // config class's `when`); empty = all. Cases it leaves out are never built nor checked against
  // the constraints (a --param that some left-out case could not take is then fine).
  std::string where;
};

// Parameter overrides (e.g. from --param BLOCK=512) replace the config's values for every case.
using ParamOverrides = std::map<std::string, int64_t>;

// Expand the benchmark cases (compare) and, when with_checks, the reference_check cases after
// them. Order: shape (spec order), dtype (spec order), variant (flags then axes, the first
// slowest; true before false, axis values in the order given). Overrides naming an unknown param or a value not allowed throw SpecError.
// Throws SpecError when a case's parameters violate the constraints or an expression fails, and
// Error when filter.where fails to evaluate or holds for no benchmark case.
std::vector<Case> expand_cases(const TaskSpec& spec, const CaseFilter& filter,
                               const ParamOverrides& overrides, bool with_checks);

}  // namespace ako::task

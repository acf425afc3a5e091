#pragma once
// Parsers shared by task/spec.cpp and task/baseline_spec.cpp (not a public interface: other
// stages take a parsed TaskSpec from load_task).
#include <string>
#include <vector>

#include "task/json_field.hpp"
#include "task/spec.hpp"

namespace ako::task {

enum class KernelRole { reference, oracle, solution, baseline };

// What a kernel's expressions and args may name beyond the task's dims, flags, buffers and
// scalars (and the solution's params): a baseline's own lets and scalars.
struct KernelScope {
  std::vector<std::string> known;
  std::vector<ScalarSpec> scalars;
};

// A kernel entry (reference, solution or baseline). For baselines the caller checks the keys.
KernelSpec parse_kernel(const Field& f, const TaskSpec& spec, KernelRole role, const KernelScope& scope = {});

// A "scalars" array; integer values are expressions over `known`. Names must differ from the
// spec's buffers and scalars.
std::vector<ScalarSpec> parse_scalars(const Field& f, const TaskSpec& spec, const std::vector<std::string>& known);

// A name that expressions refer to (dim, flag, axis, param): an identifier, not reserved, not
// in `taken`. `what` names the kind in messages ("axis").
std::string declared_name(const Field& f, const std::vector<std::string>& taken, std::string_view what);

// A "tolerance" object keyed by floating dtype; every dtype of `fill_in` it lacks gets the default.
std::map<DType, model::Tolerance> parse_tolerance(const Field& f, const std::vector<DType>& fill_in);

// An "error_factor" object keyed by floating dtype, {"rms": >= 1, "max": >= 1} each; every dtype
// of `fill_in` it lacks gets the default (default_error_factor).
std::map<DType, model::ErrorFactor> parse_error_factor(const Field& f, const std::vector<DType>& fill_in);

// The optional "axes" array (task/buffer_spec.cpp); names are added to `taken`.
std::vector<model::Axis> parse_axes(const Field& f, std::vector<std::string>& taken);

// Whether a buffer's dtype field ("$dtype", a dtype, "$<axis>") names integers: i32 / i64, or a
// string axis whose values are those (task/buffer_spec.cpp).
bool buffer_dtype_is_integer(const std::string& dtype, const TaskSpec& spec);

// The "buffers" array (task/buffer_spec.cpp); dims, flags and axes must be parsed already.
std::vector<BufferSpec> parse_buffers(const Field& f, const TaskSpec& spec);

// The optional "baselines" array (task/baseline_spec.cpp).
std::vector<BaselineSpec> parse_baselines(const Field& f, const TaskSpec& spec);

}  // namespace ako::task

#pragma once
// Parsers shared by task/spec.cpp and task/baseline_spec.cpp (not a public interface: other
// stages take a parsed TaskSpec from load_task).
#include <string>
#include <vector>

#include "task/json_field.hpp"
#include "task/spec.hpp"

namespace ako::task {

enum class KernelRole { reference, solution, baseline };

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

// The optional "baselines" array (task/baseline_spec.cpp).
std::vector<BaselineSpec> parse_baselines(const Field& f, const TaskSpec& spec);

}  // namespace ako::task

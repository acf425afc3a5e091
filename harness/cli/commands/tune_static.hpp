#pragma once
// The static checks on one tuned variant's compiled code: the same checks, on the same inputs
// (its PTX and ptxas report), with the same solution.allow as `ako run` applies to the
// solution (run_plan.cpp build_kernels), so a configuration tune picks is one run accepts.
// Spills matter most here: a variant's parameters decide its registers and local arrays, so
// some points of a space spill where others do not.
#include <string>
#include <vector>

#include "jit/compiler.hpp"
#include "result/run_result.hpp"

namespace ako::cli {

// Every finding on the module (allowed ones marked), in check_program's order.
std::vector<StaticFinding> check_variant(const jit::CompiledModule& module, const std::string& display_name,
                                         const std::vector<std::string>& allow);

// "static check: local_memory k<...>: uses a 512 byte stack frame ... (and 1 more findings)"
// (the reason `ako run` gives, search::kStaticCheckReason first); "" when nothing is refused.
std::string static_refusal(const std::vector<StaticFinding>& findings);

}  // namespace ako::cli

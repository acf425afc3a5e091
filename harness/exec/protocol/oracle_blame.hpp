#pragma once
// Blame for the task's fp64 oracle: it runs on every validation trial of a compare case (the
// precision check) and in every reference check, as the yardstick. When it faults or hangs, the
// kernel it measures cannot be judged on that case: the case is `skipped`, fault
// "oracle_<what the oracle did>", reason "fp64 oracle at fault: ...; the solution (reference) was
// not judged on this case", never `failed` or `incorrect` (as exec/protocol/reference_blame.hpp
// does for the reference). Each oracle launch is synchronised alone, so a fault right after it
// is the oracle's.
#include <string>

#include "result/run_result.hpp"

namespace ako::exec {

inline constexpr const char* kOracleFaultPrefix = "oracle_";

// Whether a fault or hang of the kernel in `role` is the oracle's to answer for.
bool charged_to_oracle(const std::string& role);

// Makes `r`, a case of `kind` ("compare" or "reference_check"), skipped because of the oracle.
void blame_oracle(CaseResult& r, const std::string& kind, const std::string& fault, const std::string& what);

// True when `r` was skipped because of the oracle (blame_oracle).
bool blamed_on_oracle(const CaseResult& r);

}  // namespace ako::exec

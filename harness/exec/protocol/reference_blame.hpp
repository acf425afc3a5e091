#pragma once
// Blame: in a compare case the reference kernel is the yardstick, so when it faults, hangs or
// writes out of bounds, the solution cannot be judged on that case. Its verdict is then
// `skipped`, never `failed` or `incorrect`: fault "reference_<what the reference did>", reason
// "reference at fault: ...; the solution was not judged on this case". In a reference_check
// case (the reference against the task's fp64 oracle) the verdict is the reference's own, so
// there a fault stays `failed`. The worker knows who was running (a fault surfaces in the
// synchronisation right after that kernel's launch, its per-launch watchdog is armed for one
// kernel, the guards are checked right after the reference's launch); these pure functions
// make the verdict, so the CPU tests cover them.
#include <string>

#include "result/run_result.hpp"

namespace ako::exec {

inline constexpr const char* kReferenceFaultPrefix = "reference_";

// Whether a fault, hang or out-of-bounds write of the kernel in `role` ("reference",
// "solution", "oracle", "baseline NAME") in a case of `kind` is the reference's to answer for.
bool charged_to_reference(const std::string& kind, const std::string& role);

// "reference_" + fault (illegal_address, timeout, out_of_bounds_write, ...).
std::string reference_fault(const std::string& fault);
// "reference at fault: <what>; the solution was not judged on this case".
std::string reference_blame_reason(const std::string& what);

// Makes `r` a case skipped because of the reference (the two above); other fields stay.
void blame_reference(CaseResult& r, const std::string& fault, const std::string& what);

// True when `r` was skipped because of the reference (blame_reference).
bool blamed_on_reference(const CaseResult& r);

}  // namespace ako::exec

#include "exec/protocol/reference_blame.hpp"

namespace ako::exec {

bool charged_to_reference(const std::string& kind, const std::string& role) {
  return kind == "compare" && role == "reference";
}

std::string reference_fault(const std::string& fault) { return kReferenceFaultPrefix + fault; }

std::string reference_blame_reason(const std::string& what) {
  return "reference at fault: " + what + "; the solution was not judged on this case";
}

void blame_reference(CaseResult& r, const std::string& fault, const std::string& what) {
  r.verdict = Verdict::skipped;
  r.fault = reference_fault(fault);
  r.reason = reference_blame_reason(what);
}

bool blamed_on_reference(const CaseResult& r) {
  return r.verdict == Verdict::skipped && r.fault.rfind(kReferenceFaultPrefix, 0) == 0;
}

}  // namespace ako::exec

#include "exec/protocol/oracle_blame.hpp"

namespace ako::exec {

bool charged_to_oracle(const std::string& role) { return role == "oracle"; }

void blame_oracle(CaseResult& r, const std::string& kind, const std::string& fault, const std::string& what) {
  r.verdict = Verdict::skipped;
  r.fault = kOracleFaultPrefix + fault;
  r.reason = "fp64 oracle at fault: " + what + "; the " + (kind == "reference_check" ? "reference" : "solution") +
             " was not judged on this case";
}

bool blamed_on_oracle(const CaseResult& r) {
  return r.verdict == Verdict::skipped && r.fault.rfind(kOracleFaultPrefix, 0) == 0;
}

}  // namespace ako::exec

#include "gate/report.hpp"

#include <algorithm>

namespace ako::gate {

const char* status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::improved: return "improved";
    case CheckStatus::warn: return "warn";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::skipped: return "skipped";
  }
  return "?";
}

const char* kind_name(CheckKind k) {
  switch (k) {
    case CheckKind::build: return "build";
    case CheckKind::correctness: return "correctness";
    case CheckKind::coverage: return "coverage";
    case CheckKind::timing: return "timing";
    case CheckKind::resources: return "resources";
  }
  return "?";
}

int GateReport::count(CheckStatus s) const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [&](const Check& c) { return c.status == s; }));
}

bool GateReport::build_failed() const {
  return std::any_of(checks.begin(), checks.end(), [](const Check& c) {
    return c.kind == CheckKind::build && c.status == CheckStatus::fail;
  });
}

}  // namespace ako::gate

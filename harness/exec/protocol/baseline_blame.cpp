#include "exec/protocol/baseline_blame.hpp"

#include <algorithm>

namespace ako::exec {

namespace {
constexpr std::string_view kBaselinePrefix = "baseline ";
}

std::string baseline_role(const std::string& name) { return std::string(kBaselinePrefix) + name; }

std::optional<std::string> baseline_of_role(const std::string& role) {
  if (role.size() <= kBaselinePrefix.size() || role.rfind(kBaselinePrefix, 0) != 0) return std::nullopt;
  return role.substr(kBaselinePrefix.size());
}

BaselineResult blamed_baseline(const std::string& name, const std::string& fault, const std::string& what) {
  BaselineResult b;
  b.name = name;
  b.verdict = Verdict::failed;
  b.fault = fault;
  b.reason = "baseline at fault: " + what + "; the case ran again without it";
  return b;
}

WorkerEvent baseline_failed_event(int index, const BaselineResult& b) {
  WorkerEvent e;
  e.event = kBaselineFailedEvent;
  e.index = index;
  CaseResult r;
  r.index = index;
  r.baselines.push_back(b);
  e.result = std::move(r);
  return e;
}

std::optional<BaselineResult> baseline_of_event(const WorkerEvent& ev) {
  if (ev.event != kBaselineFailedEvent || !ev.result || ev.result->baselines.size() != 1) return std::nullopt;
  return ev.result->baselines.front();
}

CaseJob without_baseline(const CaseJob& job, const std::string& name) {
  CaseJob out = job;
  std::erase_if(out.baselines, [&](const BaselineJob& b) { return b.name == name; });
  return out;
}

}  // namespace ako::exec

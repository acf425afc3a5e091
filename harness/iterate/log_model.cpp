#include "iterate/log_model.hpp"

namespace ako::iterate {

const LogEntry* TaskLog::find(int iter) const {
  for (const auto& e : entries)
    if (e.iter == iter) return &e;
  return nullptr;
}

LogEntry* TaskLog::find(int iter) {
  for (auto& e : entries)
    if (e.iter == iter) return &e;
  return nullptr;
}

const TaskLog* IterationLog::find(const std::string& name) const {
  for (const auto& t : tasks)
    if (t.task == name) return &t;
  return nullptr;
}

TaskLog& IterationLog::task(const std::string& name) {
  for (auto& t : tasks)
    if (t.task == name) return t;
  tasks.push_back({name, {}});
  return tasks.back();
}

bool analysis_is_empty(const LogEntry& e) {
  return e.analysis.find_first_not_of(" \t\n") == std::string::npos || e.analysis == kAnalysisPlaceholder;
}

}  // namespace ako::iterate

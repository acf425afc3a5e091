#pragma once
// The worker's stdout: one WorkerEvent as one JSON line, flushed at once, so the parent
// (and its watchdog) knows how far the worker got even if the process dies on the next call.
#include <map>
#include <string>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

class EventWriter {
 public:
  // `note` (why timing is not using CUPTI, for example) travels in the event's message;
  // `setup_s` is how long each start-up step took.
  void device(const DeviceInfo& d, const std::string& note, const std::map<std::string, double>& setup_s = {}) const;
  void begin(int index) const;
  void phase(int index, const std::string& phase) const;
  void result(const CaseResult& r) const;
  // A baseline blamed in case `index` (exec/protocol/baseline_blame.hpp).
  void baseline_failed(int index, const BaselineResult& b) const;
  void fatal(const std::string& message) const;

 private:
  void emit(const WorkerEvent& e) const;
};

}  // namespace ako::exec

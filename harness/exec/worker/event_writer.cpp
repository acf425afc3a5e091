#include "exec/worker/event_writer.hpp"

#include <cstdio>

#include "exec/protocol/baseline_blame.hpp"

namespace ako::exec {

void EventWriter::emit(const WorkerEvent& e) const {
  nlohmann::json j = e;
  // Invalid UTF-8 (a kernel name, an error string) must not abort the dump: replace it.
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

void EventWriter::device(const DeviceInfo& d, const std::string& note,
                         const std::map<std::string, double>& setup_s) const {
  WorkerEvent e;
  e.event = "device";
  e.device = d;
  e.message = note;
  e.setup_s = setup_s;
  emit(e);
}

void EventWriter::begin(int index) const {
  WorkerEvent e;
  e.event = "begin";
  e.index = index;
  emit(e);
}

void EventWriter::phase(int index, const std::string& phase) const {
  WorkerEvent e;
  e.event = "phase";
  e.index = index;
  e.phase = phase;
  emit(e);
}

void EventWriter::result(const CaseResult& r) const {
  WorkerEvent e;
  e.event = "result";
  e.index = r.index;
  e.result = r;
  emit(e);
}

void EventWriter::baseline_failed(int index, const BaselineResult& b) const { emit(baseline_failed_event(index, b)); }

void EventWriter::fatal(const std::string& message) const {
  WorkerEvent e;
  e.event = "fatal";
  e.message = message;
  emit(e);
}

}  // namespace ako::exec

#pragma once
// Shared by the task-stage tests: the rmsnorm spec as a JSON document, and a scratch repository
// root holding the files that spec references, so that tests mutate the document in memory
// without depending on the kernels other stages are writing.
//
// Two versions of the spec: real_task_doc() is tasks/rmsnorm/task.json as it is now (the
// malformed-spec rows mutate it, so they keep checking the spec that ships);
// snapshot_task_doc() is a frozen copy (fixtures/rmsnorm_task_snapshot.json) for tests that
// assert exact params, name expressions and launch geometry, which change whenever the
// solution gains a parameter.
#include <atomic>
#include <stdexcept>
#include <vector>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "task/cases.hpp"
#include "task/spec.hpp"

namespace ako::task::testing {

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

inline nlohmann::json real_task_doc() { return read_json(std::filesystem::path(AKO_SOURCE_DIR) / "tasks/rmsnorm/task.json"); }
inline nlohmann::json snapshot_task_doc() {
  return read_json(std::filesystem::path(AKO_TEST_DIR) / "cpu/task/fixtures/rmsnorm_task_snapshot.json");
}
inline nlohmann::json fixture_config_doc() {
  return read_json(std::filesystem::path(AKO_TEST_DIR) / "cpu/task/fixtures/rmsnorm_config.json");
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A throwaway repository root with the rmsnorm kernel files (placeholders: nothing compiles
// them here) and, optionally, configs (default.json and per-device files). Removed on destruction.
class ScratchRoot {
 public:
  ScratchRoot() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ako-task-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    write_file(path_ / "input/rmsnorm/rmsnorm.cuh", "// placeholder for the task-spec tests\n");
    write_file(path_ / "input/rmsnorm/oracle.cuh", "// placeholder for the task-spec tests\n");
    write_file(path_ / "solution/rmsnorm/rmsnorm.cuh", "// placeholder for the task-spec tests\n");
    write_file(path_ / "input/rmsnorm/peers/flashinfer_rmsnorm.cuh", "// placeholder for the task-spec tests\n");
  }
  ~ScratchRoot() { std::filesystem::remove_all(path_); }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path task_file() const { return path_ / "tasks/rmsnorm/task.json"; }
  std::filesystem::path config_dir() const { return path_ / "solution/rmsnorm/configs"; }
  // default.json, or the file of `device` (device_name=<name, spaces as _>.json).
  std::filesystem::path config_file(const std::string& device = "") const {
    if (device.empty()) return config_dir() / "default.json";
    std::string name = device;
    for (char& c : name)
      if (c == ' ') c = '_';
    return config_dir() / ("device_name=" + name + ".json");
  }
  void write_config(const nlohmann::json& doc, const std::string& device = "") const {
    write_file(config_file(device), doc.dump(2));
  }

  TaskSpec parse(const nlohmann::json& doc) const { return parse_task(doc, task_file(), path_); }

 private:
  std::filesystem::path path_;
};

// The case with this label; throws when there is none.
inline const Case& find_case(const std::vector<Case>& cases, const std::string& label) {
  for (const auto& c : cases)
    if (c.label() == label) return c;
  throw std::runtime_error("no case " + label);
}

}  // namespace ako::task::testing

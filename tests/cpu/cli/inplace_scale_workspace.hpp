#pragma once
// The test task inplace_scale (tests/tasks/: its task, input and solution) copied into a
// workspace of a CLI test, with the solution's BLOCK widened to `blocks`: more points than the
// task's two, so a tune takes several batches (workers, GPUs, ranks).
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"

namespace ako::testsupport {

inline void copy_inplace_scale(const std::filesystem::path& ws, const std::vector<int>& blocks) {
  namespace fs = std::filesystem;
  for (const char* d : {"tasks/inplace_scale", "input/inplace_scale", "solution/inplace_scale"}) {
    fs::create_directories(ws / d);
    fs::copy(fs::path(AKO_TEST_DIR) / "tasks" / d, ws / d, fs::copy_options::recursive);
  }
  const fs::path spec = ws / "tasks/inplace_scale/task.json";
  auto task = nlohmann::json::parse(ako::read_file(spec));
  task["solution"]["params"]["BLOCK"] = blocks;
  ako::write_file_atomically(spec, task.dump(2) + "\n");
}

}  // namespace ako::testsupport

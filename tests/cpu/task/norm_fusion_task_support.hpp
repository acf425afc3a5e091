#pragma once
// Shared by the two norm-fusion task tests (norm_scale_shift, residual_gate_norm_scale_shift):
// the repository as the workspace, a case's buffer by name, compare cases counted per
// "<shape> <dtype>", and `ako compile` of a task with fp32 added to its dtypes.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "../ako_cli_support.hpp"
#include "task/cases.hpp"
#include "task_fixture.hpp"

namespace ako::task::testing::norm_fusion {

inline const std::filesystem::path kRepo = AKO_SOURCE_DIR;

inline const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

inline std::map<std::string, int> compare_counts(const std::vector<Case>& cases) {
  std::map<std::string, int> n;
  for (const auto& c : cases)
    if (c.kind == "compare") ++n[c.shape->name + " " + std::string(dtype_name(c.dtype))];
  return n;
}

// The tasks run bf16 and fp16 only (their `when` cannot see the dtype, and fp32 everywhere
// would add half again the cases), but the kernels take T = float unchanged: compile the
// task's fp32 cases on `shapes` in a scratch copy of the workspace whose spec lists fp32.
inline testsupport::Ran compile_fp32(const std::string& task, const std::string& shapes) {
  namespace fs = std::filesystem;
  const fs::path ws = fs::temp_directory_path() / ("ako-norm-fusion-fp32-" + task + "-" + std::to_string(::getpid()));
  fs::remove_all(ws);
  for (const std::string& d : {"tasks/" + task, std::string("input/norm_scale_shift"),
                              std::string("input/residual_gate_norm_scale_shift"),
                              std::string("solution/norm_scale_shift"), "solution/" + task}) {
    fs::create_directories(ws / d);
    fs::copy(kRepo / d, ws / d, fs::copy_options::recursive | fs::copy_options::skip_existing);
  }
  nlohmann::json doc = read_json(ws / "tasks" / task / "task.json");
  doc["dtypes"].push_back("fp32");
  write_file(ws / "tasks" / task / "task.json", doc.dump(2));
  const auto r = testsupport::run_ako("compile task " + task + " --root '" + ws.string() +
                                          "' --arch sm_90a -j 2 --dtypes fp32 --shapes " + shapes,
                                      ws);
  fs::remove_all(ws);
  return r;
}

}  // namespace ako::task::testing::norm_fusion

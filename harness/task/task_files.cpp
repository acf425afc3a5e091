// Finding task specs on disk: tasks/<name>/task.json under the repository root.
#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/json_field.hpp"
#include "task/spec.hpp"

namespace ako::task {

std::vector<std::string> list_tasks(const std::filesystem::path& root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root / "tasks", ec))
    if (entry.is_directory() && std::filesystem::is_regular_file(entry.path() / "task.json"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TaskSpec load_task(const std::filesystem::path& root, const std::string& name) {
  // A name that is a path to a file is loaded as it is; anything else is a task under root/tasks.
  std::filesystem::path file = name;
  bool is_path = name.find('/') != std::string::npos || file.extension() == ".json";
  if (!is_path) file = root / "tasks" / name / "task.json";
  if (!std::filesystem::is_regular_file(file)) {
    if (is_path) throw Error(fmt::format("task spec {} does not exist", file.string()));
    auto known = list_tasks(root);
    throw Error(fmt::format("no task '{}': {} does not exist; tasks under {}: {}", name, file.string(),
                            (root / "tasks").string(), known.empty() ? std::string("none") : join_names(known)));
  }
  std::ifstream in(file);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(file.string(), "$", fmt::format("expected a valid JSON document ({})", e.what()));
  }
  return parse_task(doc, file, root);
}

}  // namespace ako::task

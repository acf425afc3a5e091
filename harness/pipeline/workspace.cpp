#include "pipeline/workspace.hpp"

#include <cstdlib>

#include "common/error.hpp"

namespace ako::pipeline {

namespace fs = std::filesystem;

fs::path find_workspace(const fs::path& explicit_root) {
  if (!explicit_root.empty()) {
    if (!fs::is_directory(explicit_root / "tasks"))
      throw Error("--root " + explicit_root.string() + ": no tasks/ folder there");
    return fs::absolute(explicit_root).lexically_normal();
  }
  const fs::path start = fs::current_path();
  for (fs::path p = start;; p = p.parent_path()) {
    if (fs::is_directory(p / "tasks")) return p;
    if (p == p.root_path() || p.empty()) break;
  }
  throw Error("no tasks/ folder in " + start.string() +
              " or any parent: run ako inside an ako workspace, or pass --root DIR");
}

fs::path worker_executable() {
  if (const char* env = std::getenv("AKO_WORKER"); env && *env) return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot locate the ako executable (/proc/self/exe): " + ec.message());
  const fs::path worker = self.parent_path() / "ako-worker";
  if (!fs::exists(worker))
    throw Error("ako-worker not found next to " + self.string() + " (set AKO_WORKER to its path)");
  return worker;
}

}  // namespace ako::pipeline

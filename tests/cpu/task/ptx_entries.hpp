#pragma once
// The PTX NVRTC emitted for one source file, read back from an `ako compile --cache-dir` folder:
// each kernel's mangled name and its text (from its `.entry` to the next), for the task tests that
// check what the compiler made of a solution (a split store, a division, a cache policy).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "task_fixture.hpp"

namespace ako::task::testing {

struct PtxEntry {
  std::string name, text;
};

// Every kernel of every cached program whose display name (the source as `ako compile` names it,
// e.g. "solution/qknorm/qknorm.cuh") is `source`.
inline std::vector<PtxEntry> ptx_entries(const std::filesystem::path& cache, const std::string& source) {
  std::vector<PtxEntry> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(cache)) {
    if (f.path().extension() != ".json") continue;
    if (read_json(f.path()).value("display_name", "") != source) continue;
    std::ifstream in(std::filesystem::path(f.path()).replace_extension(".ptx"));
    std::stringstream ptx;
    ptx << in.rdbuf();
    const std::string text = ptx.str();
    for (size_t at = text.find(".entry "); at != std::string::npos;) {
      const size_t next = text.find(".entry ", at + 1);
      std::string entry = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
      at = next;
      std::string name = entry.substr(7, entry.find('(') - 7);
      out.push_back({std::move(name), std::move(entry)});
    }
  }
  return out;
}

}  // namespace ako::task::testing

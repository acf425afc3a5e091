#include "jit/include_scan.hpp"

#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "jit/file_io.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

std::vector<std::string> quoted_includes(const std::string& text) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> names;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, include_re)) names.push_back(m[1].str());
  }
  return names;
}

bool is_under(const fs::path& file, const fs::path& dir) {
  const auto rel = file.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

std::optional<fs::path> resolve(const std::string& name, const fs::path& including_dir,
                                const std::vector<fs::path>& search_dirs) {
  if (fs::path(name).is_absolute()) {
    if (fs::is_regular_file(name)) return fs::weakly_canonical(name);
    return std::nullopt;
  }
  if (fs::is_regular_file(including_dir / name)) return fs::weakly_canonical(including_dir / name);
  for (const auto& dir : search_dirs)
    if (fs::is_regular_file(dir / name)) return fs::weakly_canonical(dir / name);
  return std::nullopt;
}

}  // namespace

std::vector<LocalHeader> scan_local_includes(const fs::path& source, const std::string& source_text,
                                             const fs::path& main_dir,
                                             const std::vector<fs::path>& search_dirs,
                                             const std::vector<fs::path>& toolkit_dirs) {
  std::vector<fs::path> canonical_toolkit;
  for (const auto& d : toolkit_dirs) canonical_toolkit.push_back(fs::weakly_canonical(d));

  std::vector<LocalHeader> headers;
  std::set<fs::path> seen{fs::weakly_canonical(source)};
  std::set<std::string> seen_unresolved;
  // (including directory, text) of the files still to scan
  std::vector<std::pair<fs::path, std::string>> pending{{main_dir, source_text}};

  while (!pending.empty()) {
    auto [including_dir, text] = std::move(pending.back());
    pending.pop_back();
    for (const auto& name : quoted_includes(text)) {
      auto found = resolve(name, including_dir, search_dirs);
      if (!found) {
        if (seen_unresolved.insert(name).second) headers.push_back({name, {}, {}});
        continue;
      }
      bool in_toolkit = false;
      for (const auto& d : canonical_toolkit) in_toolkit = in_toolkit || is_under(*found, d);
      if (in_toolkit || !seen.insert(*found).second) continue;
      std::string bytes = read_file(*found);
      headers.push_back({name, *found, bytes});
      pending.emplace_back(found->parent_path(), std::move(bytes));
    }
  }
  return headers;
}

}  // namespace ako::jit

#include "port/engine_headers.hpp"

#include <optional>
#include <regex>
#include <set>

#include "common/atomic_file.hpp"

namespace ako::port {

namespace fs = std::filesystem;

namespace {

struct Found {
  fs::path file;
  bool engine = false;  // under the include root (else an overlay's stand-in)
};

// Where NVRTC would take `name` from, among the folders ako gives it (toolkit excluded).
std::optional<Found> resolve(const std::string& name, bool quoted, const fs::path& including_dir,
                             const fs::path& include_root, const std::vector<fs::path>& overlays) {
  if (quoted && !including_dir.empty() && fs::is_regular_file(including_dir / name))
    return Found{(including_dir / name).lexically_normal(), true};
  for (const auto& o : overlays)
    if (fs::is_regular_file(o / name)) return Found{o / name, false};
  if (fs::is_regular_file(include_root / name)) return Found{(include_root / name).lexically_normal(), true};
  return std::nullopt;
}

}  // namespace

std::vector<EngineHeader> engine_header_closure(const std::string& text, const fs::path& engine_root,
                                                const fs::path& include_root, const std::vector<fs::path>& overlays) {
  static const std::regex include(R"(^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"])",
                                   std::regex::ECMAScript | std::regex::multiline);
  std::vector<EngineHeader> out;
  std::set<fs::path> seen;
  struct Pending {
    std::string text;
    fs::path dir;  // empty for the device part
  };
  std::vector<Pending> todo{{text, {}}};
  while (!todo.empty()) {
    const Pending cur = std::move(todo.back());
    todo.pop_back();
    // Every include line, #if branches alike (a harmless extra: a ROCm-only header that does
    // not exist resolves nowhere and is skipped).
    std::vector<Pending> next;
    for (std::sregex_iterator m(cur.text.begin(), cur.text.end(), include), end; m != end; ++m) {
      const auto found = resolve((*m)[2].str(), (*m)[1].str() == "\"", cur.dir, include_root, overlays);
      if (!found || !found->engine || !seen.insert(found->file).second) continue;
      EngineHeader h{fs::relative(found->file, engine_root).generic_string(), read_file(found->file)};
      next.push_back({h.text, found->file.parent_path()});
      out.push_back(std::move(h));
    }
    // Depth-first in include order: push in reverse so the first include is walked first.
    for (auto it = next.rbegin(); it != next.rend(); ++it) todo.push_back(std::move(*it));
  }
  return out;
}

}  // namespace ako::port

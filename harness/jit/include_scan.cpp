#include "jit/include_scan.hpp"

#include <set>

#include "jit/file_io.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

bool is_under(const fs::path& file, const fs::path& dir) {
  const auto rel = file.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

bool under_any(const fs::path& file, const std::vector<fs::path>& dirs) {
  for (const auto& d : dirs)
    if (is_under(file, d)) return true;
  return false;
}

std::vector<fs::path> canonical_all(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> out;
  for (const auto& d : dirs) out.push_back(fs::weakly_canonical(fs::absolute(d)));
  return out;
}

// A header as NVRTC opens it (the path it builds, whose folder its own quoted includes are
// looked up next to) and the file that is, links resolved (what is checked and keyed).
struct Found {
  fs::path opened, real;
};

// Where NVRTC would find `d`: a quoted name next to the including file first, then in the
// search directories; an angle-bracket name in the search directories only.
std::optional<Found> resolve(const IncludeDirective& d, const fs::path& including_dir,
                             const std::vector<fs::path>& search_dirs) {
  if (d.name.empty()) return std::nullopt;
  const auto found = [](const fs::path& p) { return Found{p.lexically_normal(), fs::weakly_canonical(p)}; };
  if (fs::path(d.name).is_absolute()) {
    if (fs::is_regular_file(d.name)) return found(d.name);
    return std::nullopt;
  }
  if (!d.angle && fs::is_regular_file(including_dir / d.name)) return found(including_dir / d.name);
  for (const auto& dir : search_dirs)
    if (fs::is_regular_file(dir / d.name)) return found(dir / d.name);
  return std::nullopt;
}

// "a, b, c", each once, in order.
std::string list(const std::vector<fs::path>& dirs) {
  std::string out;
  std::set<fs::path> seen;
  for (const auto& d : dirs)
    if (seen.insert(d).second) out += (out.empty() ? "" : ", ") + d.string();
  return out;
}

}  // namespace

void check_source_location(const fs::path& source, const std::string& display_name,
                           const std::vector<fs::path>& allowed_roots) {
  const fs::path real = fs::weakly_canonical(fs::absolute(source));
  std::vector<fs::path> roots = canonical_all(allowed_roots);
  roots.push_back(fs::weakly_canonical(fs::absolute(source).parent_path()));
  if (under_any(real, roots)) return;
  throw IncludeRefused(display_name + ": refused before NVRTC read anything: the file is a link to " + real.string() +
                       ", outside the folders a kernel may come from (" + list(roots) + ")");
}

std::vector<LocalHeader> scan_local_includes(const fs::path& source, const std::string& source_text,
                                             const fs::path& main_dir,
                                             const std::vector<fs::path>& search_dirs,
                                             const std::vector<fs::path>& toolkit_dirs,
                                             const std::optional<std::vector<fs::path>>& allowed_roots,
                                             const std::string& display_name) {
  const std::vector<fs::path> canonical_toolkit = canonical_all(toolkit_dirs);
  // The allowed folders: the caller's, the source's own, every -I folder and the toolkit's.
  std::vector<fs::path> roots;
  if (allowed_roots) {
    roots = canonical_all(*allowed_roots);
    roots.push_back(fs::weakly_canonical(fs::absolute(source).parent_path()));
    for (const auto& d : canonical_all(search_dirs)) roots.push_back(d);
    roots.insert(roots.end(), canonical_toolkit.begin(), canonical_toolkit.end());
  }
  const auto refuse = [&](const std::string& file, const IncludeDirective& d, const std::string& what) {
    const char open = d.angle ? '<' : '"', close = d.angle ? '>' : '"';
    throw IncludeRefused(file + ":" + std::to_string(d.line) + ": #include " + open + d.name + close +
                         " refused before NVRTC read it: " + what + "; a kernel may include only from " + list(roots));
  };

  std::vector<LocalHeader> headers;
  // Listed once per file; scanned once per (file, folder it was opened from): its quoted
  // includes are looked up next to where NVRTC opened it, which a link may change.
  std::set<fs::path> listed{fs::weakly_canonical(source)};
  std::set<std::pair<fs::path, fs::path>> scanned;
  std::set<std::string> seen_unresolved;
  // (including directory, how errors name the file, text) of the files still to scan
  struct Pending {
    fs::path including_dir;
    std::string name, text;
  };
  std::vector<Pending> pending{{main_dir, display_name.empty() ? source.string() : display_name, source_text}};

  while (!pending.empty()) {
    Pending file = std::move(pending.back());
    pending.pop_back();
    for (const auto& d : include_directives(file.text)) {
      if (d.computed) {
        if (allowed_roots) refuse(file.name, d, "a computed #include (a macro) cannot be checked before NVRTC expands it");
        continue;
      }
      const auto found = resolve(d, file.including_dir, search_dirs);
      if (allowed_roots) {
        if (found && !under_any(found->real, roots)) refuse(file.name, d, "it reads " + found->real.string());
        if (!found && fs::path(d.name).is_absolute() && !under_any(fs::path(d.name).lexically_normal(), roots))
          refuse(file.name, d, "an absolute path outside the allowed folders");
      }
      if (!found) {
        if (!d.angle && seen_unresolved.insert(d.name).second) headers.push_back({d.name, {}, {}});
        continue;  // an angle-bracket name NVRTC may have built in
      }
      if (under_any(found->real, canonical_toolkit)) continue;
      const fs::path opened_dir = fs::absolute(found->opened).parent_path();
      if (!scanned.emplace(found->real, opened_dir).second) continue;
      std::string bytes = read_file(found->real);
      if (listed.insert(found->real).second) headers.push_back({d.name, found->real, bytes});
      pending.push_back({opened_dir, found->opened.string(), std::move(bytes)});
    }
  }
  return headers;
}

}  // namespace ako::jit

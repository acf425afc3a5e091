// prepare() and cache_key(): the request as NVRTC will see it, and the hash of everything
// that can change the cubin.
#include <algorithm>
#include <regex>

#include <nvrtc.h>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/compiler.hpp"
#include "jit/file_io.hpp"
#include "jit/include_scan.hpp"
#include "jit/sha256.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

// Bumped whenever the key's inputs or the entry format change, so old entries are ignored.
// /2: headers reached by angle brackets outside the toolkit (a peer's, an overlay) are keyed.
constexpr const char* kKeyFormat = "ako.jit-key/2";

// c++17, not c++20 (which NVRTC 13.0 also accepts): what NVRTC compiles, port ships into an
// engine whose own builds (sgl-kernel, FlashInfer) use -std=c++17.
constexpr const char* kDefaultStd = "-std=c++17";

// The architectures this NVRTC can target, as numbers (90 for sm_90, sm_90a and sm_90f).
std::vector<int> supported_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return {};
  std::vector<int> archs(static_cast<size_t>(n));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  return archs;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Trims each option, drops empty ones and joins a separate "-I" "dir" pair into "-Idir".
// Order is kept: it matters for -I search order and for -D/-U.
std::vector<std::string> normalise(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (size_t i = 0; i < extra.size(); ++i) {
    std::string o = trim(extra[i]);
    if (o.empty()) continue;
    if (o == "-I" && i + 1 < extra.size()) o += trim(extra[++i]);
    if (starts_with(o, "-arch") || starts_with(o, "--gpu-architecture"))
      throw Error("extra option '" + o + "': give the architecture through the request's arch, not an option");
    out.push_back(o);
  }
  return out;
}

std::vector<fs::path> include_dirs_of(const std::vector<std::string>& options) {
  std::vector<fs::path> dirs;
  for (const auto& o : options) {
    if (starts_with(o, "-I") && o.size() > 2) dirs.push_back(fs::absolute(o.substr(2)));
    if (starts_with(o, "--include-path=")) dirs.push_back(fs::absolute(o.substr(15)));
  }
  return dirs;
}

}  // namespace

void check_arch(const std::string& arch) {
  static const std::regex real_arch(R"(sm_([0-9]+)[af]?)");
  std::smatch m;
  if (!std::regex_match(arch, m, real_arch)) {
    if (arch.rfind("compute_", 0) == 0)
      throw Error("arch '" + arch + "' is a virtual architecture: NVRTC would emit PTX, not a cubin. "
                  "Give the real one, e.g. sm_" + arch.substr(8) + ".");
    throw Error("arch '" + arch + "' is not a real GPU architecture: expected sm_<NN>[a|f], e.g. sm_90a.");
  }
  static const std::vector<int> archs = supported_archs();
  const int number = m[1].length() <= 4 ? std::stoi(m[1]) : -1;
  if (archs.empty() || std::find(archs.begin(), archs.end(), number) != archs.end()) return;
  std::string list;
  for (int a : archs) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(a);
  throw Error("arch '" + arch + "' is not one this NVRTC (" + nvrtc_version_string() + ") can compile for; it supports " +
              list + " (an 'a' or 'f' suffix where the GPU has one, e.g. sm_90a)");
}

PreparedRequest prepare(const CompileRequest& req, const CompileOptions& opt) {
  check_arch(req.arch);
  PreparedRequest p;
  p.request = req;
  p.request.source = fs::absolute(req.source);
  if (p.request.display_name.empty()) p.request.display_name = p.request.source.filename().string();
  p.toolkit = resolve_toolkit(opt.cuda_home);
  check_source_location(p.request.source, p.request.display_name, req.include_roots);
  std::error_code ec;
  p.program_name = fs::equivalent(p.request.display_name, p.request.source, ec) ? p.request.display_name
                                                                               : p.request.source.string();
  p.source_text = read_file(p.request.source);

  p.name_expressions = req.name_expressions;
  std::sort(p.name_expressions.begin(), p.name_expressions.end());
  p.name_expressions.erase(std::unique(p.name_expressions.begin(), p.name_expressions.end()),
                           p.name_expressions.end());

  // The source's own directory first, so a nested header finds its siblings; the user's
  // options next; the toolkit last, so a local header is never shadowed by a toolkit one.
  const std::vector<std::string> extra = normalise(req.extra_options);
  const bool user_std = std::any_of(extra.begin(), extra.end(), [](const std::string& o) {
    return starts_with(o, "-std=") || starts_with(o, "--std=");
  });
  p.options.push_back("-arch=" + req.arch);
  if (!user_std) p.options.push_back(kDefaultStd);
  p.options.push_back("-I" + p.request.source.parent_path().string());
  p.options.insert(p.options.end(), extra.begin(), extra.end());
  for (const auto& dir : p.toolkit.include_dirs) p.options.push_back("-I" + dir.string());
  p.options.push_back("--ptxas-options=-v");

  Sha256 h;
  h.field("format", kKeyFormat);
  h.field("arch", req.arch);
  h.field("nvrtc", nvrtc_identity());
  h.field("cuda_home", p.toolkit.home.string());
  h.field("toolkit", p.toolkit.identity);
  h.field("display_name", p.request.display_name);
  for (const auto& o : p.options) h.field("option", o);
  for (const auto& e : p.name_expressions) h.field("name_expression", e);
  h.field("source", p.source_text);
  const fs::path main_dir = fs::absolute(fs::path(p.program_name)).parent_path();
  // Every #include is checked here, before NVRTC sees the program (include_scan.hpp).
  for (const auto& header : scan_local_includes(p.request.source, p.source_text, main_dir, include_dirs_of(p.options),
                                                p.toolkit.include_dirs, req.include_roots, p.request.display_name)) {
    h.field("header", header.spelled);
    h.field("resolved", header.resolved.string());
    h.field("bytes", header.bytes);
  }
  p.key = h.hex_digest();
  return p;
}

std::string cache_key(const CompileRequest& req, const CompileOptions& opt) {
  return prepare(req, opt).key;
}

}  // namespace ako::jit

// compile(): one program in this process, cache first.
#include "jit/compiler.hpp"

#include <algorithm>
#include <chrono>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/disk_cache.hpp"
#include "jit/file_io.hpp"
#include "jit/nvrtc_program.hpp"
#include "jit/ptxas_log.hpp"

namespace ako::jit {

namespace {

long long unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// "rmsnorm_kernel<__half, true, 256>" -> "rmsnorm_kernel".
std::string template_name(const std::string& expr) {
  std::string name = expr.substr(0, expr.find('<'));
  const auto first = name.find_first_not_of(" \t"), last = name.find_last_not_of(" \t");
  return first == std::string::npos ? std::string() : name.substr(first, last - first + 1);
}

// The log without the error blocks (a message line and what follows up to a blank line) that
// point into NVRTC's name-expression map.
std::string without_name_map_errors(const std::string& log) {
  std::string out, line;
  bool dropping = false;
  for (size_t pos = 0; pos < log.size();) {
    const size_t end = log.find('\n', pos);
    line = log.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? log.size() : end + 1;
    if (line.rfind("__nv_name_map", 0) == 0) dropping = true;
    else if (dropping && line.empty()) { dropping = false; continue; }
    if (!dropping) out += line + "\n";
  }
  return out;
}

}  // namespace

std::optional<MissingKernels> explain_missing_kernels(const std::string& log, const std::vector<std::string>& name_expressions,
                                                      const std::string& file) {
  std::vector<std::string> missing;
  for (const auto& e : name_expressions) {
    const std::string name = template_name(e);
    if (name.empty() || std::find(missing.begin(), missing.end(), name) != missing.end()) continue;
    if (log.find("identifier \"" + name + "\" is undefined") != std::string::npos) missing.push_back(name);
  }
  if (missing.empty()) return std::nullopt;
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "`" : ", `") + m + "`";
  return MissingKernels{"kernel " + names + (missing.size() == 1 ? " is" : " are") + " not defined in " + file +
                            " (NVRTC finds no declaration of it: the file must define the kernel the task names)",
                        without_name_map_errors(log)};
}

BuiltProgram build(const PreparedRequest& p) {
  const auto& name = p.request.display_name;
  NvrtcProgram program(p.source_text, p.program_name);
  for (const auto& e : p.name_expressions) program.add_name_expression(e);

  BuiltProgram b;
  b.record = BuildRecord{name, p.request.arch, nvrtc_identity(), unix_ms(), 0};
  const auto start = std::chrono::steady_clock::now();
  const bool ok = program.compile(p.options);
  const auto stop = std::chrono::steady_clock::now();
  b.record.finished_unix_ms = unix_ms();

  CompiledModule& m = b.module;
  m.log = program.log();
  if (!ok) {
    if (const auto missing = explain_missing_kernels(m.log, p.name_expressions, name))
      throw CompileError(name, missing->log, missing->headline);
    throw CompileError(name, m.log);
  }
  b.cubin = program.cubin();
  if (b.cubin.empty())
    throw Error(name + ": NVRTC produced no cubin for arch " + p.request.arch);
  b.ptx = program.ptx();
  m.lowered = program.lowered_names(p.name_expressions);
  m.resources = parse_ptxas_log(m.log);
  m.compile_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return b;
}

CompiledModule build_into(const PreparedRequest& p, const std::filesystem::path& dir, std::string* fallback) {
  BuiltProgram b = build(p);
  try {
    store_entry(dir, p.key, b.cubin, b.ptx, b.record, b.module);
  } catch (const WriteError& e) {
    if (dir == scratch_dir()) throw;
    if (fallback) *fallback = e.what();
    store_entry(scratch_dir(), p.key, b.cubin, b.ptx, b.record, b.module);
  }
  return b.module;
}

CompiledModule compile(const CompileRequest& req, const CompileOptions& opt) {
  const PreparedRequest p = prepare(req, opt);
  const bool caching = opt.use_cache && !opt.cache_dir.empty();
  if (caching) {
    if (auto hit = load_entry(opt.cache_dir, p.key).module) {
      hit->compile_ms = 0;
      return *hit;
    }
  }
  return build_into(p, caching ? opt.cache_dir : scratch_dir());
}

std::string nvrtc_version_string() { return nvrtc_identity(); }

}  // namespace ako::jit

// compile(): one program in this process, cache first.
#include "jit/compiler.hpp"

#include <chrono>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/disk_cache.hpp"
#include "jit/nvrtc_program.hpp"
#include "jit/ptxas_log.hpp"

namespace ako::jit {

namespace {

long long unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

CompiledModule build_into(const PreparedRequest& p, const std::filesystem::path& dir) {
  const auto& name = p.request.display_name;
  NvrtcProgram program(p.source_text, name);
  for (const auto& e : p.name_expressions) program.add_name_expression(e);

  BuildRecord record{name, p.request.arch, nvrtc_identity(), unix_ms(), 0};
  const auto start = std::chrono::steady_clock::now();
  const bool ok = program.compile(p.options);
  const auto stop = std::chrono::steady_clock::now();
  record.finished_unix_ms = unix_ms();

  CompiledModule m;
  m.log = program.log();
  if (!ok) throw CompileError(name, m.log);
  const std::string cubin = program.cubin();
  if (cubin.empty())
    throw Error(name + ": NVRTC produced no cubin for arch " + p.request.arch);
  m.lowered = program.lowered_names(p.name_expressions);
  m.resources = parse_ptxas_log(m.log);
  m.compile_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  store_entry(dir, p.key, cubin, program.ptx(), record, m);
  return m;
}

CompiledModule compile(const CompileRequest& req, const CompileOptions& opt) {
  const PreparedRequest p = prepare(req, opt);
  const bool caching = opt.use_cache && !opt.cache_dir.empty();
  if (caching) {
    if (auto hit = load_entry(opt.cache_dir, p.key)) {
      hit->compile_ms = 0;
      return *hit;
    }
  }
  return build_into(p, caching ? opt.cache_dir : scratch_dir());
}

std::string nvrtc_version_string() { return nvrtc_identity(); }

}  // namespace ako::jit

#include "pipeline/run_plan.hpp"

#include "exec/protocol/buffer_plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "jit/build.hpp"
#include "jit/file_io.hpp"
#include "model/dtype.hpp"
#include "common/error.hpp"
#include "search/tuning_db.hpp"
#include "verify/static/static_check.hpp"
#include "verify/support_sources.hpp"

namespace ako::pipeline {

namespace fs = std::filesystem;

static std::string display_name(const fs::path& file, const fs::path& root) {
  std::error_code ec;
  auto rel = fs::relative(file, root, ec);
  if (ec || rel.empty() || rel.native().rfind("..", 0) == 0) return file.string();
  return rel.string();
}

fs::path support_source(const fs::path& cache_dir) {
  // Write the embedded files once per content into the cache (or the temp folder), so the
  // JIT sees ordinary files with stable paths and its cache key stays stable too.
  const auto& files = verify::support_sources();
  std::string all;
  for (const auto& f : files) all += std::string(f.name) + '\0' + f.content + '\0';
  const fs::path base = cache_dir.empty() ? fs::temp_directory_path() / "ako" : cache_dir;
  const std::string name = fmt::format("{:016x}", std::hash<std::string>{}(all));
  const auto materialise = [&](const fs::path& dir) {
    for (const auto& f : files) {
      const fs::path file = dir / f.name;
      std::error_code ec;
      if (fs::exists(file, ec) && jit::try_read_file(file) == f.content) continue;
      jit::make_directories(dir);
      jit::write_file_atomic(file, f.content);
    }
    return dir / "support_kernels.cuh";
  };
  try {
    return materialise(base / "support" / name);
  } catch (const jit::WriteError&) {
    // A read-only or full cache: the compile that follows says so (its notes); the run goes on.
    return materialise(jit::scratch_dir() / "support" / name);
  }
}

std::map<std::string, std::string> support_name_expressions() {
  std::map<std::string, std::string> m;
  for (DType t : {DType::bf16, DType::fp16, DType::fp32, DType::i32, DType::i64}) {
    const std::string ty(dtype_cuda_type(t)), name(dtype_name(t));
    if (dtype_is_integer(t)) {
      m["fill_range:" + name] = "ako_fill_range<" + ty + ">";   // integers in [low, high)
    } else {
      m["fill_normal:" + name] = "ako_fill_normal<" + ty + ">";
      m["fill_uniform:" + name] = "ako_fill_uniform<" + ty + ">";
    }
    m["poison:" + name] = "ako_poison<" + ty + ">";     // out views inside inout storages
    m["compare:" + name] = "ako_compare<" + ty + ">";   // integers exactly
    if (!dtype_is_integer(t)) {
      // The precision check against the fp64 oracle (tasks/README.md, "Precision against the oracle").
      m["widen:" + name] = "ako_widen<" + ty + ">";
      m["oracle_error:" + name] = "ako_oracle_error<" + ty + ">";
    }
  }
  // Writes outside a storage's writable views: bitwise, so one kernel per element size.
  m["check_outside:u16"] = "ako_check_outside<unsigned short>";
  m["check_outside:u32"] = "ako_check_outside<unsigned int>";
  m["check_outside:u64"] = "ako_check_outside<unsigned long long>";
  // Guard bands and the shared-memory scribble (trustworthy-verdict defences).
  m["guard_fill:u8"] = "ako_guard_fill<unsigned char>";
  m["guard_check:u8"] = "ako_guard_check<unsigned char>";
  m["smem_scribble:u32"] = "ako_smem_scribble<unsigned int>";
  m["clock_probe:u64"] = "ako_clock_probe<unsigned long long>";   // throttle detection while timing
  m["l2_evict:u64"] = "ako_l2_evict<unsigned long long>";         // the cold-L2 flush that leaves L2 clean
  return m;
}

namespace {

std::vector<fs::path> include_roots_for(const fs::path& file, const fs::path& root);  // below

// The NVRTC programs of a run: one per source file (its name expressions together), the
// support kernels last.
struct Programs {
  std::vector<jit::CompileRequest> reqs;
  std::vector<std::string> keys;                    // per request: the source file
  std::map<std::string, std::string> role_of;       // file -> reference / oracle / solution
  std::map<std::string, std::string> baseline_of;   // file -> baseline name
  std::set<std::string> solution_files;             // checked statically, even when also a reference
};

void add_task_programs(const std::vector<task::Case>& cases, const BuildOptions& opt, Programs& p) {
  std::map<std::string, std::set<std::string>> exprs;
  auto add = [&](const task::KernelInstance& k, const char* role) {
    exprs[k.file.string()].insert(k.name_expression);
    p.role_of.emplace(k.file.string(), role);
  };
  for (const auto& c : cases) {
    add(c.reference, "reference");
    if (c.oracle) add(*c.oracle, "oracle");
    if (c.solution) {
      add(*c.solution, "solution");
      p.solution_files.insert(c.solution->file.string());
    }
  }
  for (const auto& [file, names] : exprs) {
    jit::CompileRequest r;
    r.source = file;
    r.display_name = display_name(file, opt.root);
    r.name_expressions.assign(names.begin(), names.end());
    r.arch = opt.arch;
    r.include_roots = p.solution_files.count(file) ? include_roots_for(file, opt.root) : task_include_roots(opt.root);
    p.reqs.push_back(std::move(r));
    p.keys.push_back(file);
  }
}

// Baselines: one program per file with its own include folders; their compile errors are
// theirs alone (BuiltKernels::baseline_errors), never the run's.
void add_baseline_programs(const std::vector<task::Case>& cases, const BuildOptions& opt, Programs& p) {
  for (const auto& c : cases)
    for (const auto& bl : c.baselines) {
      if (!bl.kernel) continue;
      const std::string file = bl.kernel->file.string();
      if (p.baseline_of.emplace(file, bl.name).second) {
        jit::CompileRequest r;
        r.source = file;
        r.display_name = display_name(file, opt.root);
        r.arch = opt.arch;
        r.extra_options = bl.options;
        r.include_roots = task_include_roots(opt.root);
        p.reqs.push_back(std::move(r));
        p.keys.push_back(file);
      }
      auto req = std::find_if(p.reqs.begin(), p.reqs.end(), [&](const jit::CompileRequest& r) { return r.source == file; });
      if (std::find(req->name_expressions.begin(), req->name_expressions.end(), bl.kernel->name_expression) ==
          req->name_expressions.end())
        req->name_expressions.push_back(bl.kernel->name_expression);
    }
}

// Program i's kernels, with their role, lowered names and resources.
void collect_program(const Programs& p, size_t i, const jit::CompiledModule& m, const BuildOptions& opt, BuiltKernels& out) {
  const bool is_support = i + 1 == p.reqs.size();
  const auto baseline = is_support ? p.baseline_of.end() : p.baseline_of.find(p.keys[i]);
  (m.cache_hit ? out.cache_hits : out.compiled) += 1;
  for (const auto& expr : p.reqs[i].name_expressions) {
    KernelBuild b;
    b.role = is_support                      ? "support"
             : baseline != p.baseline_of.end() ? "baseline " + baseline->second
                                               : p.role_of.at(p.keys[i]);
    b.file = p.reqs[i].display_name;
    b.name_expression = expr;
    auto it = m.lowered.find(expr);
    if (it != m.lowered.end()) {
      b.lowered_name = it->second;
      auto r = m.resources.find(it->second);
      if (r != m.resources.end()) b.resources = r->second;
    }
    b.arch = opt.arch;
    b.cache_hit = m.cache_hit;
    b.compile_ms = m.compile_ms;
    if (!is_support) out.builds.push_back(b);
  }
  if (is_support) {
    out.support = m;
    return;
  }
  out.modules[p.keys[i]] = m;
  if (p.solution_files.count(p.keys[i]))
    for (auto& f : check_compiled_module(m, p.reqs[i].display_name, opt.allow)) out.findings.push_back(std::move(f));
}

}  // namespace

void check_buffer_plans(const task::TaskSpec& spec, const std::vector<task::Case>& cases) {
  for (const auto& c : cases) {
    try {
      exec::plan_buffers(c.buffers);
    } catch (const SpecError&) {
      throw;
    } catch (const Error& e) {
      throw SpecError(spec.file.string(), "buffers", fmt::format("case \"{}\": {}", c.label(), e.what()));
    }
  }
}

std::vector<fs::path> task_include_roots(const fs::path& root) {
  if (root.empty()) return {};
  return {root / "input", root / "solution"};
}

namespace {
// A kernel file given from elsewhere (`--solution tests/attacks/x.cuh`, a candidate in another
// checkout) may include from the input/, solution/ and tests/ folders of the workspace that
// holds it (the nearest folder with tasks/, input/ and solution/ above it), as a task file does
// from its own.
std::vector<fs::path> include_roots_for(const fs::path& file, const fs::path& root) {
  std::vector<fs::path> roots = task_include_roots(root);
  std::error_code ec;
  for (fs::path dir = fs::absolute(file).parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path())
    if (fs::is_directory(dir / "tasks", ec) && fs::is_directory(dir / "input", ec) && fs::is_directory(dir / "solution", ec)) {
      for (const char* d : {"input", "solution", "tests"}) roots.push_back(dir / d);
      break;
    }
  return roots;
}
}  // namespace

BuiltKernels build_kernels(const std::vector<task::Case>& cases, const BuildOptions& opt) {
  Programs p;
  add_task_programs(cases, opt, p);
  add_baseline_programs(cases, opt, p);
  jit::CompileRequest sup;
  sup.source = support_source(opt.compile.cache_dir);
  sup.display_name = "ako/support_kernels.cuh";
  for (const auto& [k, e] : support_name_expressions()) sup.name_expressions.push_back(e);
  sup.arch = opt.arch;
  p.reqs.push_back(sup);

  BuiltKernels out;
  const jit::BatchResult batch = jit::compile_all(p.reqs, opt.compile);
  out.cache_notes = batch.notes;
  for (size_t i = 0; i < p.reqs.size(); ++i) {
    if (batch.errors[i].empty()) {
      collect_program(p, i, batch.modules[i], opt, out);
      continue;
    }
    const auto baseline = i + 1 == p.reqs.size() ? p.baseline_of.end() : p.baseline_of.find(p.keys[i]);
    if (baseline != p.baseline_of.end()) out.baseline_errors[baseline->second] = batch.errors[i];
    else out.errors.push_back(batch.errors[i]);
  }
  return out;
}

static exec::LaunchJob launch_job(const task::KernelInstance& k, const BuiltKernels& built) {
  const auto& m = built.modules.at(k.file.string());
  auto it = m.lowered.find(k.name_expression);
  if (it == m.lowered.end())
    throw Error("internal: no lowered name for " + k.name_expression + " in " + k.file.string());
  exec::LaunchJob j;
  j.module = m.cubin.string();
  j.function = it->second;
  j.grid = k.grid;
  j.block = k.block;
  j.shared_bytes = k.shared_bytes;
  j.args = k.args;
  return j;
}

exec::WorkerJob make_worker_job(const std::vector<task::Case>& cases, const BuiltKernels& built,
                                int trials, uint64_t seed,
                                const exec::TimingOptions& timing, bool time,
                                const fs::path& cache_dir) {
  exec::WorkerJob job;
  job.support.module = built.support.cubin.string();
  for (const auto& [key, expr] : support_name_expressions()) {
    auto it = built.support.lowered.find(expr);
    if (it == built.support.lowered.end()) throw Error("internal: support kernel " + expr + " missing");
    job.support.functions[key] = it->second;
  }
  job.timing = timing;
  job.cache_dir = cache_dir.string();
  for (size_t i = 0; i < cases.size(); ++i) {
    const task::Case& c = cases[i];
    exec::CaseJob cj;
    cj.index = static_cast<int>(i);
    cj.kind = c.kind;
    cj.label = c.label();
    cj.dims = c.shape->dims;
    cj.buffers = c.buffers;
    cj.reference = launch_job(c.reference, built);
    if (c.solution) cj.solution = launch_job(*c.solution, built);
    if (c.oracle) cj.oracle = launch_job(*c.oracle, built);
    for (const auto& bl : c.baselines)
      if (bl.kernel && !built.baseline_errors.count(bl.name))
        cj.baselines.push_back(exec::BaselineJob{bl.name, launch_job(*bl.kernel, built)});
    cj.trials = trials;
    // Distinct, recorded seeds per case: the run seed and the case index.
    cj.seed = seed + 1000003ull * i;
    cj.time = time && c.kind == "compare";
    cj.bytes = c.bytes;
    job.cases.push_back(std::move(cj));
  }
  return job;
}

CaseResult case_result_skeleton(const task::Case& c, int index) {
  CaseResult r;
  r.index = index;
  r.kind = c.kind;
  r.shape = c.shape->name;
  r.dims = c.shape->dims;
  r.dtype = std::string(dtype_name(c.dtype));
  r.flags = c.flags;
  for (const auto& [name, value] : c.axes) r.axes[name] = model::axis_value_text(value);
  r.params = c.params;
  r.config_class = c.config_class;
  r.bytes = c.bytes;
  r.elements = c.elements;
  for (const auto& bl : c.baselines) {
    BaselineResult b;
    b.name = bl.name;
    b.reason = bl.kernel ? "not run" : bl.absent_reason;
    r.baselines.push_back(std::move(b));
  }
  return r;
}

void mark_baseline_compile_errors(std::vector<CaseResult>& cases, const BuiltKernels& built) {
  for (auto& c : cases)
    for (auto& b : c.baselines)
      if (auto it = built.baseline_errors.find(b.name); it != built.baseline_errors.end()) {
        b.verdict = Verdict::failed;
        b.fault = jit::compile_fault(it->second);
        b.reason = "the baseline did not compile: " + it->second.substr(0, it->second.find('\n'));
      }
}

void derive_rates(CaseResult& r, double copy_bandwidth_gbs) {
  const double solution_us = r.solution_time ? r.solution_time->iqm_us : 0;
  for (auto& b : r.baselines) {
    if (!b.time || b.time->iqm_us <= 0) continue;
    b.gbps = r.bytes / (b.time->iqm_us * 1e-6) / 1e9;
    if (copy_bandwidth_gbs > 0) b.pct_copy_bw = 100.0 * b.gbps / copy_bandwidth_gbs;
    if (solution_us > 0) b.speedup = b.time->iqm_us / solution_us;
  }
  if (r.solution_time && r.solution_time->iqm_us > 0) {
    r.gbps = r.bytes / (r.solution_time->iqm_us * 1e-6) / 1e9;
    if (copy_bandwidth_gbs > 0) r.pct_copy_bw = 100.0 * r.gbps / copy_bandwidth_gbs;
    if (r.reference_time && r.reference_time->iqm_us > 0)
      r.speedup = r.reference_time->iqm_us / r.solution_time->iqm_us;
    // Rates, as the copy's bytes are the case's rounded (size_copy_bytes); a copy of the case's
    // own bytes (or none recorded) makes this the copy's time over the solution's.
    if (r.size_copy_time && r.size_copy_time->iqm_us > 0) {
      const double copy_bytes = r.size_copy_bytes > 0 ? r.size_copy_bytes : r.bytes;
      r.pct_size_copy = 100.0 * (r.bytes / r.solution_time->iqm_us) / (copy_bytes / r.size_copy_time->iqm_us);
    }
  }
}

bool refuse_implausible(CaseResult& r, double copy_bandwidth_gbs, double max_fraction) {
  if (r.verdict != Verdict::correct || !r.solution_time || !r.solution_time->cold_l2) return false;
  if (copy_bandwidth_gbs <= 0 || r.bytes <= 0 || r.solution_time->iqm_us <= 0) return false;
  const double gbps = r.bytes / (r.solution_time->iqm_us * 1e-6) / 1e9;
  if (gbps <= max_fraction * copy_bandwidth_gbs) return false;
  r.verdict = Verdict::failed;
  r.fault = "implausible";
  r.reason = fmt::format(
      "implausible: {:.0f} GB/s for the {:.2f} MB this case must move in {:.2f} us is {:.0f}% of the "
      "measured copy bandwidth {:.0f} GB/s (limit {:.0f}%, cold L2): the kernel cannot have read its "
      "inputs and written its outputs",
      gbps, r.bytes / 1e6, r.solution_time->iqm_us, 100.0 * gbps / copy_bandwidth_gbs, copy_bandwidth_gbs,
      100.0 * max_fraction);
  r.speedup = 0;
  return true;
}

std::vector<StaticFinding> check_compiled_module(const jit::CompiledModule& module, const std::string& display_name,
                                                 const std::vector<std::string>& allow) {
  verify::StaticCheckInput in;
  in.file = display_name;
  in.ptx = read_file(module.ptx);
  in.resources = module.resources;
  for (const auto& [expr, lowered] : module.lowered) in.display_names[lowered] = expr;
  in.allow.insert(allow.begin(), allow.end());
  return verify::check_program(in);
}

std::string static_refusal(const std::vector<StaticFinding>& findings) {
  const StaticFinding* first = nullptr;
  int refused = 0;
  for (const auto& f : findings)
    if (!f.allowed) {
      if (!first) first = &f;
      ++refused;
    }
  if (!first) return {};
  return fmt::format("{}{} {}: {}{}", search::kStaticCheckReason, first->check, first->kernel, first->what,
                     refused > 1 ? fmt::format(" (and {} more findings)", refused - 1) : "");
}

void refuse_static(std::vector<CaseResult>& cases, const std::vector<StaticFinding>& findings) {
  const std::string why = static_refusal(findings);
  if (why.empty()) return;
  for (auto& c : cases) {
    if (c.kind == "compare") {
      c.verdict = Verdict::failed;
      c.fault = "static_check";
      c.reason = why;
    } else {
      c.verdict = Verdict::skipped;
      c.reason = "not run: the solution was refused by the static checks";
    }
  }
}

}  // namespace ako::pipeline

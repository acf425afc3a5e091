#include "port/port.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "common/atomic_file.hpp"
#include "git/engine_repo.hpp"
#include "port/engine_profile.hpp"
#include "port/line_diff.hpp"
#include "port/mirror.hpp"
#include "port/port_names.hpp"
#include "port/pr_artifact.hpp"
#include "port/provenance.hpp"
#include "port/render_dispatch.hpp"
#include "port/render_kernel.hpp"
#include "port/render_wrapper.hpp"
#include "task/spec.hpp"

namespace ako::port {

namespace fs = std::filesystem;

namespace {

std::string today_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
  return buf;
}

std::optional<std::string> read_if_exists(const fs::path& f) {
  if (!fs::is_regular_file(f)) return std::nullopt;
  return read_file(f);
}

// The engine's copy of the mirrored kernel must be what was mirrored; else show the lines.
void check_drift(const Provenance& prov, const git::EngineState& engine, const fs::path& workspace) {
  const auto current = read_if_exists(engine.workdir / prov.mirrored.path);
  if (!current)
    throw PortRefusal("drift", "the engine's " + prov.mirrored.path + " is gone since it was mirrored at " +
                                   prov.mirrored.commit.substr(0, 12),
                      {prov.mirrored.path}, "ako mirror --from " + engine.workdir.string() + " --task " + prov.task +
                                                " --path <its new location>, re-check the solution, then port");
  if (sha256_of(*current) == prov.mirrored.sha256) return;
  std::optional<std::string> mirrored = read_if_exists(workspace / prov.verbatim_copy);
  if (!mirrored) mirrored = git::read_blob_at(engine.workdir, prov.mirrored.commit, prov.mirrored.path);
  std::vector<std::string> lines;
  if (mirrored) {
    lines = split_lines(unified_diff(*mirrored, *current, "mirrored " + prov.mirrored.path + " @ " + prov.mirrored.commit.substr(0, 12),
                                     "engine " + prov.mirrored.path + " now"));
  } else {
    lines.push_back("(the mirrored text is neither in " + prov.verbatim_copy + " nor at commit " + prov.mirrored.commit +
                    " in the engine: only its hash is known)");
  }
  throw PortRefusal("drift",
                    "the engine's " + prov.mirrored.path + " changed since it was mirrored (" +
                        std::to_string(mirrored ? changed_line_count(*mirrored, *current) : 0) +
                        " lines differ): the solution was validated against the old kernel",
                    lines,
                    "ako mirror --from " + engine.workdir.string() + " --task " + prov.task +
                        " (brings the new kernel into input/), ako run task " + prov.task + " (re-validate), then ako port");
}

// The engine headers the mirrored device part compiled against must be as mirrored too: the
// solution replaces device code that calls them, and ako port's kernel file includes them.
void check_header_drift(const Provenance& prov, const git::EngineState& engine) {
  std::vector<std::string> lines;
  std::vector<std::string> changed;
  for (const auto& h : prov.engine_headers) {
    const auto current = read_if_exists(engine.workdir / h.path);
    if (current && sha256_of(*current) == h.sha256) continue;
    changed.push_back(h.path);
    const auto mirrored = git::read_blob_at(engine.workdir, h.commit, h.path);
    if (!current) lines.push_back(h.path + ": gone");
    else if (mirrored)
      for (auto& l : split_lines(unified_diff(*mirrored, *current, "mirrored " + h.path + " @ " + h.commit.substr(0, 12),
                                              "engine " + h.path + " now")))
        lines.push_back(std::move(l));
    else lines.push_back(h.path + ": changed (only its hash at " + h.commit.substr(0, 12) + " is known)");
  }
  if (changed.empty()) return;
  std::string names;
  for (const auto& c : changed) names += (names.empty() ? "" : ", ") + c;
  throw PortRefusal("drift",
                    "engine headers the mirrored kernel compiles against changed since it was mirrored (" + names +
                        "): the solution was validated against the old helpers",
                    lines,
                    "ako mirror --from " + engine.workdir.string() + " --task " + prov.task +
                        " (re-records the headers), ako run task " + prov.task + " (re-validate), then ako port");
}

}  // namespace

std::string task_to_port(const fs::path& workspace, const fs::path& engine) {
  std::vector<std::string> found;
  if (fs::is_directory(workspace / "solution"))
    for (const auto& d : fs::directory_iterator(workspace / "solution"))
      if (fs::exists(d.path() / "provenance.json")) found.push_back(d.path().filename().string());
  std::sort(found.begin(), found.end());
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    const std::vector<std::string> tasks = task::list_tasks(workspace);
    if (tasks.size() == 1) return tasks.front();  // not mirrored yet: port says what to run
    throw Error("no task has been mirrored (no solution/<task>/provenance.json): run ako mirror --from " +
                engine.string() + " --task <task> first");
  }
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
  throw Error("several tasks are mirrored (" + list + "): pass --task");
}

PortResult port_solution(const PortOptions& opt) {
  PortResult r;
  // The engine first, and of the profile's layout: every hint below names it.
  const git::EngineState engine = git::read_engine_state(opt.engine, "--to");
  r.task = opt.task.empty() ? task_to_port(opt.workspace, engine.workdir) : opt.task;
  const task::TaskSpec spec = task::load_task(opt.workspace, r.task);
  const fs::path prov_file = provenance_path(opt.workspace, spec.name);
  const std::optional<Provenance> loaded = load_provenance(prov_file);
  const std::string task_engine = spec.port.is_object() ? spec.port.value("engine", "") : "";
  const EngineProfile profile = load_engine_profile(
      opt.workspace, profile_name_for(opt.profile, loaded ? loaded->engine_profile : task_engine));
  r.profile = profile.name;
  check_engine_layout(profile, engine.workdir, "--to");
  if (!loaded)
    throw Error("no provenance for task " + spec.name + " (" + prov_file.string() +
                "): ako port writes into the engine only what a mirror record says is safe; run ako mirror --from " +
                engine.workdir.string() + " --task " + spec.name + " first");
  Provenance prov = *loaded;
  const PortNames names = port_names(spec, profile, opt.kernel);
  if (names.kernel_path == prov.mirrored.path)
    throw PortRefusal("mirrored-path", "the port target " + names.kernel_path + " is the engine's own kernel that was mirrored",
                      {names.kernel_path},
                      "port beside it: --kernel " + profile.layout.kernel_root + "/<area>/" + names.op +
                          ".cuh (the engine's callers use its own host entry points, which ako does not reproduce)");

  if (engine.head_oid.empty()) throw Error("the engine repository " + engine.workdir.string() + " has no commit");
  if (engine.head_branch.empty())
    throw PortRefusal("detached-head", "the engine's HEAD is detached at " + engine.head_oid.substr(0, 12), {},
                      "git -C " + engine.workdir.string() + " switch " + engine.default_branch);
  r.engine_commit = engine.head_oid;

  // Clean, but for ako's own earlier output that is still exactly what ako wrote.
  std::vector<std::string> foreign;
  for (const auto& d : engine.dirty) {
    const EngineFileRecord* rec = find_ported(prov, d);
    const auto now = read_if_exists(engine.workdir / d);
    if (!rec || !now || sha256_of(*now) != rec->sha256) foreign.push_back(d);
  }
  if (!foreign.empty())
    throw PortRefusal("dirty-engine",
                      "the engine worktree has " + std::to_string(foreign.size()) + " uncommitted change(s) ako did not make",
                      foreign, "git -C " + engine.workdir.string() + " stash push --include-untracked  (or commit them)");

  check_drift(prov, engine, opt.workspace);
  check_header_drift(prov, engine);

  const std::string solution_text = read_file(opt.workspace / spec.solution.file);
  const std::string origin = "Solution " + spec.solution.file.string() + " (sha256 " + sha256_of(solution_text).substr(0, 16) +
                             "), measured against the engine's " + prov.mirrored.path + " @ " + prov.mirrored.commit.substr(0, 12) + ".";
  const std::vector<task::DeviceConfig> baked = configs_to_bake(spec, opt.devices);
  r.baked = baked_config_lines(baked);
  const RenderedKernel kernel = render_kernel(spec, solution_text, profile, names, origin, baked);
  r.device_section = kernel.device_section;
  r.files.push_back({names.kernel_path, "kernel", read_if_exists(engine.workdir / names.kernel_path), kernel.file_text});
  r.files.push_back({names.wrapper_path, "wrapper", read_if_exists(engine.workdir / names.wrapper_path),
                     render_wrapper(spec, profile, names)});

  // An existing target must be ako's own, unchanged since ako wrote it.
  for (const auto& f : r.files) {
    if (!f.before || !f.changes()) continue;
    const EngineFileRecord* rec = find_ported(prov, f.path);
    if (!rec || rec->sha256 != sha256_of(*f.before))
      throw PortRefusal("not-ako-file",
                        "the engine's " + f.path + (rec ? " changed since ako ported it" : " exists and ako did not write it"),
                        split_lines(unified_diff(*f.before, f.after, "engine " + f.path + " now", "ako port " + f.path)),
                        rec ? "keep the engine's edits in the solution instead, or git -C " + engine.workdir.string() +
                                  " checkout -- " + f.path + " to let ako rewrite it"
                            : "port to another path (--kernel), or move the engine's file away");
  }

  for (const auto& f : r.files)
    if (f.changes())
      r.diff += unified_diff(f.before.value_or(""), f.after, f.before ? "a/" + f.path : "/dev/null", "b/" + f.path);
  r.unchanged = std::none_of(r.files.begin(), r.files.end(), [](const PlannedFile& f) { return f.changes(); });

  r.branch_needed = engine.head_branch == engine.default_branch && !r.unchanged;
  r.branch = r.branch_needed ? (opt.branch.empty() ? "ako/" + spec.name + "-" + (opt.date.empty() ? today_utc() : opt.date) : opt.branch)
                             : engine.head_branch;
  if (opt.dry_run) return r;

  if (r.branch_needed) r.branch_created = git::switch_to_new_branch(engine.workdir, r.branch);
  for (const auto& f : r.files) {
    if (f.changes()) {
      fs::create_directories((engine.workdir / f.path).parent_path());
      write_file_atomically(engine.workdir / f.path, f.after);
    }
    EngineFileRecord rec{f.path, sha256_of(f.after), engine.head_oid};
    auto it = std::find_if(prov.ported.begin(), prov.ported.end(), [&](const auto& x) { return x.path == f.path; });
    if (it == prov.ported.end()) prov.ported.push_back(rec);
    else if (it->sha256 != rec.sha256) *it = rec;  // an unchanged file keeps the commit it was first written on
  }
  save_provenance(prov_file, prov);

  PrInputs in;
  in.workspace = opt.workspace;
  in.result_file = opt.result_file;
  in.engine_profile = profile.name;
  in.engine_commit = engine.head_oid;
  in.mirrored_from = prov.mirrored.path + " @ " + prov.mirrored.commit.substr(0, 12);
  for (const auto& f : r.files) in.files.push_back(f.path);
  in.jit_flags = profile.jit_flags;
  in.baked = baked;
  const PrArtifact pr = render_pr_artifact(spec, in);
  r.pr_file = opt.workspace / "solution" / spec.name / "PR.md";
  write_file_atomically(r.pr_file, pr.markdown);
  r.pr_missing = pr.missing;
  return r;
}

}  // namespace ako::port

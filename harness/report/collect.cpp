#include "report/collect.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "gate/case_key.hpp"
#include "git/commit.hpp"
#include "iterate/trajectory.hpp"
#include "report/case_bars.hpp"
#include "report/history.hpp"
#include "report/landscape.hpp"
#include "task/spec.hpp"

namespace ako::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read_json(const fs::path& file) {
  try {
    return json::parse(read_file(file));
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: not JSON ({})", file.string(), e.what()));
  }
}

RunResult read_run(const fs::path& file) {
  try {
    return run_result_from_json(read_json(file));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

std::string describe_device(const DeviceInfo& d) {
  if (d.name.empty()) return "no GPU in this run";
  std::string s = d.name + " (" + d.arch;
  if (d.sm_count > 0) s += fmt::format(", {} SMs", d.sm_count);
  if (d.l2_bytes > 0) s += fmt::format(", L2 {} MiB", d.l2_bytes >> 20);
  if (d.driver_version > 0) s += fmt::format(", driver {}.{}", d.driver_version / 1000, d.driver_version % 1000 / 10);
  s += ")";
  if (d.copy_bandwidth_gbs > 0) {
    s += fmt::format(", copy bandwidth {:.0f} GB/s", d.copy_bandwidth_gbs);
    if (!d.copy_bandwidth_source.empty())
      s += d.copy_bandwidth_source == "measured" ? std::string(" (measured)") : std::string(" (cached)");
  }
  return s;
}

// The `ako run` command the recorded options stand for.
std::string run_command_of(const RunResult& r, const task::TaskSpec& spec) {
  const json& o = r.options;
  std::string s = "ako run task " + r.task;
  auto list = [&](const char* key, const char* flag) {
    if (!o.contains(key) || !o[key].is_array() || o[key].empty()) return;
    std::string v;
    for (const auto& x : o[key]) v += (v.empty() ? "" : ",") + (x.is_string() ? x.get<std::string>() : x.dump());
    s += fmt::format(" {} {}", flag, v);
  };
  list("shapes", "--shapes");
  list("dtypes", "--dtypes");
  if (o.value("hot", false)) s += " --hot";
  if (o.value("l2_flush", "") == "read") s += " --l2-flush read";
  if (o.contains("seed") && o["seed"].is_number()) s += fmt::format(" --seed {}", o["seed"].dump());
  if (o.contains("params") && o["params"].is_array())
    for (const auto& p : o["params"]) s += " --param " + (p.is_string() ? p.get<std::string>() : p.dump());
  if (o.contains("params") && o["params"].is_object())
    for (const auto& [k, v] : o["params"].items()) s += " --param " + k + "=" + v.dump();
  if (o.contains("solution") && o["solution"].is_string() && !o["solution"].get<std::string>().empty() &&
      fs::path(o["solution"].get<std::string>()).lexically_normal() != spec.solution.file.lexically_normal())
    s += " --solution " + o["solution"].get<std::string>();
  return s + " --json FILE";
}

std::string workspace_commit(const fs::path& root) {
  try {
    const auto head = git::head_commit(root);
    if (!head) return "no commit yet";
    const std::string subject = head->message.substr(0, head->message.find('\n'));
    return head->oid.substr(0, 12) + " " + subject;
  } catch (const std::exception&) {
    return "not a git repository";
  }
}

// The case iterate profiled: recorded in ncu.json, else the rule it uses (the hottest correct
// timed case of that iteration's run).
std::string profiled_case(const json& ncu, const RunResult* result) {
  if (ncu.contains("case") && ncu["case"].is_string()) return ncu["case"].get<std::string>();
  const CaseResult* hot = nullptr;
  if (result)
    for (const auto& c : result->cases)
      if (c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time &&
          (!hot || c.solution_time->iqm_us > hot->solution_time->iqm_us))
        hot = &c;
  return hot ? gate::case_key(*hot) + " (the iteration's hottest case)" : "unknown case";
}

struct Trajectory {
  iterate::TrajectorySummary summary;
  std::map<int, RunResult> results;
};

std::optional<Trajectory> read_trajectory(const ReportRequest& req, ReportData& d, const Say& say) {
  const iterate::TrajectoryPaths paths{req.root, req.task};
  const std::string how = fmt::format("ako iterate --task {} -m \"<hypothesis>\" (one call per iteration)", req.task);
  if (!fs::exists(paths.summary())) {
    d.missing.push_back({"iteration history and the ncu pair", paths.rel_summary(), how});
    say(fmt::format("trajectory: {} not found; the iteration history is left out", paths.rel_summary()));
    return std::nullopt;
  }
  Trajectory t;
  t.summary = iterate::trajectory_summary_from_json(read_json(paths.summary()), paths.summary().string());
  for (const auto& it : t.summary.iterations) {
    const fs::path f = paths.iter_dir(it.iter) / "result.json";
    if (fs::exists(f)) t.results.emplace(it.iter, read_run(f));
    else d.missing.push_back({fmt::format("iteration {}'s per-case times", it.iter), paths.rel_iter(it.iter) + "/result.json",
                              "restore it from the iteration's commit (git checkout <commit> -- " + paths.rel_iter(it.iter) + ")"});
  }
  say(fmt::format("trajectory: {} ({} iterations, baseline {}, best {}; {} results read)", paths.rel_summary(),
                  t.summary.iterations.size(), t.summary.baseline, t.summary.best, t.results.size()));
  return t;
}

void read_ncu(const ReportRequest& req, const Trajectory& t, ReportData& d, const Say& say) {
  const iterate::TrajectoryPaths paths{req.root, req.task};
  auto side = [&](int iter, const char* role) -> std::optional<NcuSide> {
    const fs::path f = paths.iter_dir(iter) / "ncu.json";
    if (!fs::exists(f)) {
      d.missing.push_back({fmt::format("ncu {} (iteration {})", role, iter), paths.rel_iter(iter) + "/ncu.json",
                           fmt::format("ako iterate --task {} --ncu -m \"<hypothesis>\" (it profiles the hottest case "
                                       "of the iteration it records{})",
                                       req.task, iter == t.summary.baseline ? "; record the baseline with --ncu" : "")});
      return std::nullopt;
    }
    const json j = read_json(f);
    const auto r = t.results.find(iter);
    NcuSide s{iter, profiled_case(j, r == t.results.end() ? nullptr : &r->second), profile::ncu_summary_from_json(j)};
    say(fmt::format("ncu {}: {} ({})", role, paths.rel_iter(iter) + "/ncu.json", s.case_label));
    return s;
  };
  d.ncu.before = side(t.summary.baseline, t.summary.best == t.summary.baseline ? "before and after" : "before");
  // The baseline is still the best: before and after are the same profile.
  d.ncu.after = t.summary.best == t.summary.baseline ? d.ncu.before : side(t.summary.best, "after");
}

void read_landscape(const ReportRequest& req, const std::string& device, ReportData& d, const Say& say) {
  const bool named = !req.tune_db.empty();
  const fs::path rel = fs::path("bench") / "tuning" / (req.task + ".jsonl");  // as the user would type it
  const fs::path db = named ? req.tune_db : req.root / rel;
  const std::string shown = named ? db.string() : rel.string();
  const std::string how = fmt::format("ako tune task {} --db {} (on a GPU machine)", req.task, shown);
  if (!fs::exists(db)) {
    if (named) throw Error(fmt::format("--tune {}: no such file; make it with {}", db.string(), how));
    d.missing.push_back({"tuning landscape", shown, how + ", or pass --tune FILE"});
    say(fmt::format("tuning database: {} not found; the tuning landscape is left out", shown));
    return;
  }
  task::TaskSpec spec = task::load_task(req.root, req.task);
  d.landscape = load_landscape(spec, db, device);
  d.landscape->db_file = shown;
  size_t variants = 0, refused = 0, measured = 0;
  for (const auto& c : d.landscape->classes) {
    variants += c.variants.size();
    refused += c.refused;
    measured += c.variants.size() + c.wrong + c.refused + c.incomplete > 0;
  }
  say(fmt::format("tuning database: {} ({} records of {}; {} of {} classes measured, {} usable variants, {} refused "
                  "by the static checks)",
                  shown, d.landscape->records, d.landscape->device, measured, d.landscape->classes.size(), variants,
                  refused));
}

}  // namespace

ReportData collect_report_data(const ReportRequest& req, const Say& say) {
  ReportData d;
  d.meta.task = req.task;
  d.meta.command = req.command;
  d.meta.generated_at = utc_now();
  d.meta.commit = workspace_commit(req.root);
  const task::TaskSpec spec = task::load_task(req.root, req.task);  // checked before anything is read

  std::optional<Trajectory> traj;
  if (!req.run_file.empty() && !fs::exists(req.run_file))
    throw Error(fmt::format("--run {}: no such file; make it with `ako run task {} --json {}` on a GPU machine",
                            req.run_file.string(), req.task, req.run_file.string()));
  traj = read_trajectory(req, d, say);

  std::optional<RunResult> run;
  if (!req.run_file.empty()) {
    run = read_run(req.run_file);
    d.meta.run_file = req.run_file.string();
  } else if (traj && traj->results.count(traj->summary.best)) {
    run = traj->results.at(traj->summary.best);
    d.meta.run_file = iterate::TrajectoryPaths{req.root, req.task}.rel_iter(traj->summary.best) + "/result.json";
  } else {
    throw Error(fmt::format(
        "no run result for task {}: pass --run FILE (made by `ako run task {} --json FILE` on a GPU machine), or record "
        "iterations with `ako iterate --task {}` (the best one's trajectory/{}/iter-N/result.json is used)",
        req.task, req.task, req.task, req.task));
  }
  if (run->task != req.task)
    throw Error(fmt::format("{}: a result of task {}, not {}", d.meta.run_file, run->task, req.task));
  say(fmt::format("run result: {} ({} compare cases, {} correct; {})", d.meta.run_file, run->summary.cases,
                  run->summary.correct, run->device.name.empty() ? "no GPU" : run->device.name));
  d.meta.device = describe_device(run->device);
  d.meta.run_started_at = run->started_at;
  d.meta.run_options = run_command_of(*run, spec);
  d.meta.config = run->config.message;
  d.bars = case_bars(*run);
  d.bench = bench_table(*run);

  if (traj) {
    d.history = build_history(traj->summary, traj->results);
    read_ncu(req, *traj, d, say);
  }
  read_landscape(req, run->device.name, d, say);
  for (const auto& f : req.validate_files) {
    if (!fs::exists(f))
      throw Error(fmt::format("--validate {}: no such file; make it with `ako validate --model M --json {}` on a GPU machine",
                              f.string(), f.string()));
    validate::ValidateResult v = validate::read_validate_json(f);
    say(fmt::format("model-level validation: {} ({} on {}: {}, {} famil{})", f.string(), v.model, v.device, v.verdict,
                    v.families.size(), v.families.size() == 1 ? "y" : "ies"));
    d.models.emplace_back(f.string(), std::move(v));
  }
  return d;
}

}  // namespace ako::report

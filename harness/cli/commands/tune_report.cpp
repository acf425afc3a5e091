#include "cli/commands/tune_report.hpp"

#include "task/cases.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "search/time_budget.hpp"
#include "task/config.hpp"
#include "task/json_field.hpp"

namespace ako::cli {

namespace {

// Its shapes, a shape of which it takes some cases only with their count: "text-512-cfg (8 cases)".
std::string classes_shapes(const search::ShapeClass& c) {
  std::vector<std::string> names;
  for (const auto* s : c.shapes) {
    const auto only = c.only_cases.find(s->name);
    names.push_back(only == c.only_cases.end() ? s->name : fmt::format("{} ({} cases)", s->name, only->second.size()));
  }
  return names.empty() ? std::string("-") : task::join_names(names, ",");
}

}  // namespace

std::vector<UnseenShape> unseen_shapes(const task::TaskSpec& spec, const std::vector<task::ConfigClass>& classes,
                                       const std::vector<const task::ShapeSpec*>& tuned) {
  std::vector<UnseenShape> out;
  for (const auto& s : spec.shapes) {
    if (std::find(tuned.begin(), tuned.end(), &s) != tuned.end()) continue;
    // The first variant in the first dtype: the shape's first case, as the report names one
    // class per shape (a class that splits cases by flag, axis or dtype is named by that case).
    task::ExprEnv env = task::variant_envs(spec).front();
    for (const auto& [k, v] : s.dims) env[k] = v;
    env = task::class_env(spec, std::move(env), spec.dtypes.front());
    const task::ClassChoice cc = task::choose_config_class(spec, classes, env, s.name);
    out.push_back({s.name, cc.index >= 0 ? classes[cc.index].name : std::string(), cc.note});
  }
  return out;
}

std::optional<double> class_reference_us(const search::TuningDb& db, const search::ShapeClass& cls,
                                         const search::Params& params) {
  double log_sum = 0;
  for (const auto* s : cls.shapes) {
    const search::DbRecord* r = db.find(s->name, params);
    if (!r || r->reference_us <= 0) return std::nullopt;
    double ref = r->reference_us;
    if (const auto only = cls.only_cases.find(s->name); only != cls.only_cases.end()) {
      ref = 0;  // the class's own cases: their reference times
      for (const auto& c : r->cases)
        if (only->second.count(c.label)) {
          if (c.reference_us <= 0) return std::nullopt;
          ref += c.reference_us;
        }
      if (ref <= 0) return std::nullopt;
    }
    log_sum += std::log(ref);
  }
  if (cls.shapes.empty()) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(cls.shapes.size()));
}

void print_outcome(const search::TuneOutcome& o, const search::TuningDb& db) {
  fmt::print("{:<14} {:<44} {:>9} {:>6} {:>6} {:>5}  {:<44} {:>10} {:>5} {:>10} {:>7}\n", "class", "shapes", "valid",
             "tried", "usable", "wrong", "winner", "score_us", "regs", "vs current", "vs ref");
  for (const auto& co : o.classes) {
    if (co.cls.shapes.empty()) continue;
    std::string vs = "-", ref = "-";
    if (co.winner) {
      if (auto cur = search::class_score(db, co.cls.shapes, co.cls.current, nullptr, nullptr, &co.cls.only_cases))
        vs = fmt::format("{:+.1f}%", 100.0 * (co.winner_score / *cur - 1.0));
      if (auto r = class_reference_us(db, co.cls, *co.winner)) ref = fmt::format("{:.2f}x", *r / co.winner_score);
    }
    fmt::print("{:<14} {:<44} {:>9} {:>6} {:>6} {:>5}  {:<44} {:>10} {:>5} {:>10} {:>7}\n", co.cls.name,
               classes_shapes(co.cls), fmt::format("{}/{}", co.space.valid.size(), co.space.total), co.evaluations,
               co.usable, co.wrong, co.winner ? search::params_text(*co.winner) : std::string("(none)"),
               co.winner ? fmt::format("{:.2f}", co.winner_score) : std::string("-"),
               co.winner_registers >= 0 ? std::to_string(co.winner_registers) : std::string("-"), vs, ref);
    if (!co.tie_note.empty()) fmt::print("{:<14} tie: {}\n", "", co.tie_note);
    if (!co.complete) fmt::print("{:<14} incomplete: stopped after {} of its planned variants\n", "", co.evaluations);
  }
  fmt::print("\ncoverage (each shape: its class's config against the shape's own best record):\n");
  fmt::print("{:<14} {:<14} {:<44} {:>10} {:<44} {:>10} {:>7}\n", "shape", "class", "config", "time_us", "own best",
             "best_us", "loss");
  for (const auto& r : o.coverage)
    fmt::print("{:<14} {:<14} {:<44} {:>10.2f} {:<44} {:>10.2f} {:>6.1f}%\n", r.shape, r.cls,
               search::params_text(r.used), r.used_us, search::params_text(r.own_best), r.own_best_us, r.loss_pct);
  std::map<std::string, uint64_t> rejected;
  for (const auto& co : o.classes)
    for (const auto& [why, n] : co.space.rejected) rejected[why] += n;
  if (!rejected.empty()) {
    fmt::print("\nrejected points, summed over the tuned classes (first rule that fails):\n");
    for (const auto& [why, n] : rejected) fmt::print("  {:>6}  {}\n", n, why);
  }
  std::vector<std::string> untuned;
  for (const auto& co : o.classes)
    if (co.cls.shapes.empty()) untuned.push_back(co.cls.name);
  if (!untuned.empty())
    fmt::print("\nuntuned classes (no shape of the set; their params kept): {}\n", task::join_names(untuned));
}

void print_pipeline(const search::PipelineStats& p) {
  fmt::print("PIPELINE: {} batches; compile {:.1f} s, measure {:.1f} s, waited for compiles {:.1f} s: {:.0f}% of the "
             "compile time hidden behind measuring\n",
             p.batches, p.prepare_s, p.measure_s, p.wait_s, 100.0 * p.hidden_fraction());
}

void print_unseen(const std::vector<UnseenShape>& unseen) {
  if (unseen.empty()) return;
  fmt::print("\nshapes the tuning did not measure (the class each gets from the written config):\n");
  for (const auto& u : unseen)
    fmt::print("  {:<14} {:<14} {}\n", u.shape, u.cls.empty() ? std::string("(none)") : u.cls,
               u.note.empty() ? std::string("its own class") : u.note);
}

nlohmann::json summary_json(const TuneRunInfo& info, const search::TuneOutcome& o, const search::TuningDb& db,
                            const std::vector<UnseenShape>& unseen) {
  using nlohmann::json;
  json classes = json::array();
  size_t evaluations = 0, refused = 0;
  for (const auto& co : o.classes) {
    evaluations += co.evaluations;
    refused += co.refused;
    json shapes = json::array();
    for (const auto* s : co.cls.shapes) shapes.push_back(s->name);
    json c{{"name", co.cls.name},          {"when", co.cls.when},     {"shapes", shapes},
           {"valid", co.space.valid.size()}, {"total", co.space.total}, {"evaluations", co.evaluations},
           {"usable", co.usable},          {"wrong", co.wrong},       {"refused_static", co.refused},
           {"complete", co.complete},
           {"current", co.cls.current}};
    if (auto cur = search::class_score(db, co.cls.shapes, co.cls.current, nullptr, nullptr, &co.cls.only_cases))
      c["current_us"] = *cur;
    if (co.winner) {
      c["winner"] = *co.winner;
      c["score_us"] = co.winner_score;
      c["registers"] = co.winner_registers;
      if (auto r = class_reference_us(db, co.cls, *co.winner)) c["reference_us"] = *r;
      if (!co.tie_note.empty()) c["tie"] = co.tie_note;
    }
    classes.push_back(std::move(c));
  }
  json coverage = json::array();
  for (const auto& r : o.coverage)
    coverage.push_back({{"shape", r.shape}, {"class", r.cls}, {"used", r.used}, {"used_us", r.used_us},
                        {"own_best", r.own_best}, {"own_best_us", r.own_best_us}, {"loss_pct", r.loss_pct}});
  json unseen_json = json::array();
  for (const auto& u : unseen) unseen_json.push_back({{"shape", u.shape}, {"class", u.cls}, {"note", u.note}});
  const auto& p = o.pipeline;
  json out{{"schema", kTuneSummarySchema},
           {"task", info.task},
           {"strategy", info.strategy},
           {"seed", info.seed},
           {"budget", info.budget},
           {"db", info.db},
           {"replay", info.replay},
           {"wall_s", info.wall_s},
           {"stopped", o.stopped},
           {"evaluations", evaluations},
           {"refused_static", refused},
           {"measured_pairs", o.measured},
           {"reused_pairs", o.reused},
           {"remeasured_cases", info.remeasured_cases},
           {"drift_notes", info.drift_notes},
           {"pipeline",
            {{"batches", p.batches},
             {"compile_s", p.prepare_s},
             {"measure_s", p.measure_s},
             {"wait_s", p.wait_s},
             {"hidden_s", p.hidden_s()},
             {"hidden_fraction", p.hidden_fraction()}}},
           {"classes", classes},
           {"coverage", coverage},
           {"unseen_shapes", unseen_json}};
  if (info.time_budget_s) out["time_budget_s"] = *info.time_budget_s;
  if (!info.sentinels.is_null()) out["sentinels"] = info.sentinels;
  return out;
}

}  // namespace ako::cli

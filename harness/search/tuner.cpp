#include "search/tuner.hpp"

#include "task/cases.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "task/expr.hpp"

namespace ako::search {

namespace {

Params default_params(const task::TaskSpec& spec) {
  Params p;
  for (const auto& t : spec.solution.params) p[t.name] = t.values.front();
  return p;
}

// Index of the config class `shape` falls in (first whose `when` holds), -1 for none. With
// `strict`, a class choice that depends on the flags or axes cannot be tuned per config class:
// an error; without, the class of the first combination (what a per-shape class starts from).
int config_class_of(const task::TaskSpec& spec, const task::ShapeSpec& shape, bool strict = true) {
  int chosen = -2;
  for (task::ExprEnv env : task::variant_envs(spec)) {
    for (const auto& [k, v] : shape.dims) env[k] = v;
    int found = -1;
    for (size_t c = 0; c < spec.config_classes.size() && found < 0; ++c) {
      const auto& cls = spec.config_classes[c];
      if (cls.when.empty() || task::eval_bool(cls.when, env)) found = static_cast<int>(c);
    }
    if (!strict) return found;
    if (chosen != -2 && found != chosen)
      throw Error(fmt::format("shape {}: the config's classes depend on the flags or axes; tune with --classes shape",
                              shape.name));
    chosen = found;
  }
  return chosen;
}

std::string shape_when(const task::ShapeSpec& s) {
  std::string w;
  for (const auto& [k, v] : s.dims) w += fmt::format("{}{} == {}", w.empty() ? "" : " && ", k, v);
  return w;
}

}  // namespace

std::vector<ShapeClass> make_classes(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                                     ClassMode mode) {
  std::vector<ShapeClass> own, configured;
  for (const auto& c : spec.config_classes)
    configured.push_back(ShapeClass{c.name, c.when, {}, c.params, true, c.tuned_on, c.partial});
  for (const auto* s : shapes) {
    const int c = mode == ClassMode::config ? config_class_of(spec, *s) : -1;
    if (c >= 0) {
      configured[c].shapes.push_back(s);
      continue;
    }
    Params current = default_params(spec);
    if (const int fallback = config_class_of(spec, *s, false); fallback >= 0)
      current = spec.config_classes[fallback].params;
    std::string name = "shape-" + s->name;
    for (const auto& c : spec.config_classes)
      if (c.name == name) name += "-tuned";
    own.push_back(ShapeClass{name, shape_when(*s), {s}, current, false});
  }
  own.insert(own.end(), configured.begin(), configured.end());
  return own;
}

std::optional<Candidate> select_winner(const std::vector<Candidate>& candidates, std::string* note) {
  if (candidates.empty()) return std::nullopt;
  double best = candidates.front().score;
  for (const auto& c : candidates) best = std::min(best, c.score);
  std::vector<const Candidate*> tied;
  for (const auto& c : candidates)
    if (c.score <= best * (1 + kTieRel)) tied.push_back(&c);
  auto regs = [](const Candidate* c) { return c->registers < 0 ? std::numeric_limits<int>::max() : c->registers; };
  auto simpler = [](const Params& a, const Params& b) {
    for (const auto& [k, v] : a) {
      const int64_t w = b.at(k);
      if (v != w) return v < w;
    }
    return false;
  };
  const Candidate* win = *std::min_element(tied.begin(), tied.end(), [&](const Candidate* a, const Candidate* b) {
    if (regs(a) != regs(b)) return regs(a) < regs(b);
    return simpler(a->params, b->params);
  });
  if (note) {
    note->clear();
    if (tied.size() > 1)
      *note = fmt::format("{} within {:.0f}% of the fastest ({:.3f} us): {}", tied.size(), kTieRel * 100, best,
                          win->score == best ? "the fastest also has the fewest registers / simplest params"
                                             : "fewer registers, then simpler params, decided");
  }
  return *win;
}

std::optional<double> class_score(const TuningDb& db, const std::vector<const task::ShapeSpec*>& shapes,
                                  const Params& params, int* registers, bool* wrong) {
  double log_sum = 0;
  int regs = -1;
  for (const auto* s : shapes) {
    const DbRecord* r = db.find(s->name, params);
    if (!r) return std::nullopt;
    if (!r->correct()) {
      if (wrong && (r->verdict == "incorrect" || r->verdict == "failed")) *wrong = true;
      return std::nullopt;
    }
    log_sum += std::log(r->time_us);
    regs = std::max(regs, r->registers);
  }
  if (shapes.empty()) return std::nullopt;
  if (registers) *registers = regs;
  return std::exp(log_sum / static_cast<double>(shapes.size()));
}

std::vector<CoverageRow> coverage(const std::vector<ClassOutcome>& classes, const TuningDb& db,
                                  const std::vector<const task::ShapeSpec*>& shapes) {
  std::vector<CoverageRow> out;
  for (const auto& co : classes) {
    if (!co.winner) continue;
    for (const auto* s : co.cls.shapes) {
      CoverageRow row;
      row.shape = s->name;
      row.cls = co.cls.name;
      row.used = *co.winner;
      if (const DbRecord* r = db.find(s->name, *co.winner)) row.used_us = r->time_us;
      for (const DbRecord* r : db.records_for_shape(s->name))
        if (r->correct() && (row.own_best_us == 0 || r->time_us < row.own_best_us)) {
          row.own_best_us = r->time_us;
          row.own_best = r->params;
        }
      if (row.own_best_us > 0) row.loss_pct = 100.0 * (row.used_us / row.own_best_us - 1.0);
      out.push_back(std::move(row));
    }
  }
  std::sort(out.begin(), out.end(), [&](const CoverageRow& a, const CoverageRow& b) {
    auto pos = [&](const std::string& n) {
      return std::find_if(shapes.begin(), shapes.end(), [&](const auto* s) { return s->name == n; }) - shapes.begin();
    };
    return pos(a.shape) < pos(b.shape);
  });
  return out;
}

std::unique_ptr<PreparedBatch> Evaluator::prepare(std::vector<EvalRequest> batch) {
  auto p = std::make_unique<PreparedBatch>();
  p->requests = std::move(batch);
  return p;
}

ReplayEvaluator::ReplayEvaluator(const std::filesystem::path& file, const DbContext& context)
    : recorded_(file, context) {}

std::vector<DbRecord> ReplayEvaluator::evaluate(const std::vector<EvalRequest>& batch) {
  std::vector<DbRecord> out;
  for (const auto& req : batch)
    for (const auto* s : req.shapes) {
      ++lookups;
      if (const DbRecord* r = recorded_.find(s->name, req.params))
        out.push_back(*r);
      else
        ++misses;
    }
  return out;
}

nlohmann::json config_document(const TuneOutcome& outcome, const std::string& source,
                               const std::string& previous_source) {
  nlohmann::json classes = nlohmann::json::array();
  std::vector<std::string> kept_unsearched;  // classes whose params come from the config before
  for (const auto& co : outcome.classes) {
    // A class of its own for one shape whose search found nothing usable (no valid variant, or
    // none correct) is left out: its params would be a guess (another class's, or the
    // defaults) that may not even meet the constraints; the shape keeps the config it had.
    if (!co.cls.from_config && !co.winner) continue;
    nlohmann::json c{{"name", co.cls.name}};
    if (!co.cls.when.empty()) c["when"] = co.cls.when;
    // A class whose search stopped early (--time) keeps its params unless its winner was
    // measured faster than them, beyond noise, in this same search: a partial search's winner
    // is not the space's best, but it is better than what it replaces. Either way, when the
    // search measured the kept params too, the class counts as tuned (its params were checked
    // against everything tried) and says so in `partial`. A tuned class records its shapes.
    const bool measured_partial = co.winner && !co.complete && co.current_score;
    const bool replace =
        co.winner && (co.complete || (measured_partial && co.winner_score < *co.current_score * (1.0 - kPartialWinMargin)));
    c["params"] = replace ? *co.winner : co.cls.current;
    auto shape_entry = [](const task::ShapeSpec& s) { return nlohmann::json{{"name", s.name}, {"dims", s.dims}}; };
    if ((co.winner && co.complete) || measured_partial) {
      nlohmann::json on = nlohmann::json::array();
      for (const auto* s : co.cls.shapes) on.push_back(shape_entry(*s));
      c["tuned_on"] = std::move(on);
    } else if (!co.cls.tuned_before.empty()) {  // not tuned here, params kept: the earlier tune's mark stays
      nlohmann::json on = nlohmann::json::array();
      for (const auto& s : co.cls.tuned_before) on.push_back(shape_entry(s));
      c["tuned_on"] = std::move(on);
      if (const auto& p = co.cls.partial_before)
        c["partial"] = {{"evaluated", p->evaluated}, {"kept", p->kept}, {"winner_faster_pct", p->winner_faster_pct}};
    }
    if (!replace && !measured_partial && co.cls.from_config) kept_unsearched.push_back(co.cls.name);
    if (measured_partial)
      c["partial"] = {{"evaluated", co.evaluations},
                      {"kept", !replace},
                      {"winner_faster_pct", 100.0 * (1.0 - co.winner_score / *co.current_score)}};
    classes.push_back(std::move(c));
  }
  std::string full_source = source;
  if (!kept_unsearched.empty() && !previous_source.empty())
    full_source += fmt::format("; classes kept from the config before ({}): {}", fmt::join(kept_unsearched, ", "),
                               previous_source);
  return nlohmann::json{{"schema", task::kConfigSchema}, {"source", full_source}, {"classes", classes}};
}

}  // namespace ako::search

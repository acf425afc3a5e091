#include "search/tuner.hpp"

#include "task/cases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "task/config.hpp"
#include "task/entry_view.hpp"
#include "task/expr.hpp"

namespace ako::search {

namespace {

Params default_params(const task::TaskSpec& spec) {
  Params p;
  for (const auto& t : spec.solution.params) p[t.name] = t.values.front();
  return p;
}

// The shape's dims, but for those some of its cases' entry cannot see (`unseen`): there the port
// passes 1 (task/entry_view.hpp), so `F == 21` would keep a class from the very cases it was
// tuned on.
std::string shape_when(const task::ShapeSpec& s, const std::set<std::string>& unseen) {
  std::string w;
  for (const auto& [k, v] : s.dims)
    if (!unseen.count(k)) w += fmt::format("{}{} == {}", w.empty() ? "" : " && ", k, v);
  return w;
}

// A class name's suffix for `ako tune --where`: "act == 'gelu_tanh'" -> "act-gelu_tanh",
// "!weight && layout != 'lc'" -> "not-weight-and-layout-not-lc".
std::string where_suffix(const std::string& where) {
  static const std::pair<const char*, const char*> words[] = {{"!=", " not "}, {"==", " "}, {"<=", " le "},
                                                             {">=", " ge "}, {"<", " lt "}, {">", " gt "},
                                                             {"&&", " and "}, {"||", " or "}, {"!", " not "}};
  std::string spelled;
  for (size_t i = 0; i < where.size();) {
    bool matched = false;
    for (const auto& [op, word] : words)
      if (where.compare(i, std::char_traits<char>::length(op), op) == 0) {
        spelled += word;
        i += std::char_traits<char>::length(op);
        matched = true;
        break;
      }
    if (!matched) spelled += where[i++];
  }
  std::string out;
  for (const char ch : spelled) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    if (keep) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// The labels a class counts on a shape: those `only` names for it, or null (every case).
const std::set<std::string>* class_labels(const CaseSets* only, const std::string& shape) {
  if (!only) return nullptr;
  const auto it = only->find(shape);
  return it == only->end() ? nullptr : &it->second;
}

}  // namespace

std::vector<ShapeClass> make_classes(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                                     ClassMode mode, const std::string& where) {
  std::vector<ShapeClass> own, configured, rest;
  for (const auto& c : spec.config_classes)
    configured.push_back(ShapeClass{c.name, c.when, {}, {}, c.params, true, c.tuned_on, c.partial});
  auto own_name = [&](const task::ShapeSpec& s) {
    std::string name = "shape-" + s.name;
    if (!where.empty()) name.append("-").append(where_suffix(where));
    for (const auto& c : spec.config_classes)
      if (c.name == name) name += "-tuned";
    return name;
  };
  auto own_when = [&](const task::ShapeSpec& s, const std::set<std::string>& unseen) {
    return where.empty() ? shape_when(s, unseen) : fmt::format("({}) && ({})", shape_when(s, unseen), where);
  };
  bool any_taken = false;
  for (const auto* s : shapes) {
    // Each of the shape's cases (flags x axes; every dtype alike) that --where takes to the first
    // class that takes it.
    std::map<int, std::set<std::string>> by_class;
    int first_taken = -1;  // the class the shape's first case goes to: what a class of its own starts from
    bool left_out = false;  // --where left some of the shape's cases out
    std::set<std::string> unseen;  // dims the entry of some case taken cannot see
    for (const auto& v : task::shape_variant_cases(spec, *s)) {
      if (!task::where_holds(where, v.env)) {
        left_out = true;
        continue;
      }
      for (const auto& d : task::unseen_dims(spec, v.env)) unseen.insert(d);
      const int c = task::first_matching_class(spec.config_classes, v.env);
      if (first_taken < 0) first_taken = c;
      by_class[c].insert(v.labels.begin(), v.labels.end());
    }
    if (by_class.empty()) continue;  // --where takes none of its cases
    any_taken = true;
    const bool some_only = by_class.size() > 1 || left_out;
    if (mode == ClassMode::config && !by_class.count(-1)) {
      for (const auto& [c, labels] : by_class) {
        configured[c].shapes.push_back(s);
        if (some_only) configured[c].only_cases[s->name] = labels;
      }
      continue;
    }
    const Params current = first_taken >= 0 ? spec.config_classes[first_taken].params : default_params(spec);
    if (mode == ClassMode::shape || by_class.size() == 1) {
      ShapeClass& cls = own.emplace_back(ShapeClass{own_name(*s), own_when(*s, unseen), {s}, {}, current, false});
      if (left_out)
        for (const auto& [c, labels] : by_class) cls.only_cases[s->name].insert(labels.begin(), labels.end());
      continue;
    }
    // Some of the shape's cases are no class's: they get a class of their own, after the
    // config's classes (which take the others first), written with the shape's dims only (and
    // --where's expression).
    for (const auto& [c, labels] : by_class) {
      ShapeClass& cls = c >= 0 ? configured[c] : rest.emplace_back(ShapeClass{own_name(*s), own_when(*s, unseen), {}, {},
                                                                              default_params(spec), false});
      cls.shapes.push_back(s);
      cls.only_cases[s->name] = labels;
    }
  }
  if (!where.empty() && !any_taken)
    throw Error(fmt::format("--where '{}' holds for no case of the shapes tuned", where));
  own.insert(own.end(), configured.begin(), configured.end());
  own.insert(own.end(), rest.begin(), rest.end());
  return own;
}

std::optional<Candidate> select_winner(const std::vector<Candidate>& candidates, std::string* note) {
  if (candidates.empty()) return std::nullopt;
  const Candidate& fastest = *std::min_element(candidates.begin(), candidates.end(),
                                               [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  const double best = fastest.score;
  // No case of a tied candidate may run more than kCaseTieRel over the fastest's same case.
  auto no_case_slower = [&](const Candidate& c) {
    for (const auto& [label, t] : fastest.case_us) {
      const auto it = c.case_us.find(label);
      if (it != c.case_us.end() && it->second > t * (1 + kCaseTieRel)) return false;
    }
    return true;
  };
  std::vector<const Candidate*> tied;
  size_t held_out = 0;
  for (const auto& c : candidates) {
    if (c.score > best * (1 + kTieRel)) continue;
    if (no_case_slower(c)) tied.push_back(&c);
    else ++held_out;
  }
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
    if (held_out > 0)
      *note += fmt::format("{}{} more within {:.0f}% not tied: a case over {:.0f}% slower than the fastest's",
                           note->empty() ? "" : "; ", held_out, kTieRel * 100, kCaseTieRel * 100);
  }
  return *win;
}

std::map<std::string, double> class_case_times(const TuningDb& db, const std::vector<const task::ShapeSpec*>& shapes,
                                               const Params& params, const CaseSets* only) {
  std::map<std::string, double> out;
  for (const auto* s : shapes) {
    const DbRecord* r = db.find(s->name, params);
    if (!r) continue;
    const std::set<std::string>* labels = class_labels(only, s->name);
    for (const DbCase& c : r->cases)
      if (c.verdict == "correct" && c.time_us > 0 && (!labels || labels->count(c.label))) out[c.label] = c.time_us;
  }
  return out;
}

std::optional<double> record_time(const DbRecord& r, const std::set<std::string>* labels, bool* wrong) {
  auto bad = [&](const std::string& verdict) {
    if (wrong && (verdict == "incorrect" || verdict == "failed")) *wrong = true;
    return std::nullopt;
  };
  // A variant that never ran on the shape (a compile failure, a static-check refusal) has no
  // cases to pick from: its verdict holds for every class.
  if (!labels || r.cases.empty()) return r.correct() ? std::optional<double>(r.time_us) : bad(r.verdict);
  double sum = 0;
  size_t found = 0;
  for (const DbCase& c : r.cases) {
    if (!labels->count(c.label)) continue;
    if (c.verdict != "correct" || c.time_us <= 0) return bad(c.verdict);
    sum += c.time_us;
    ++found;
  }
  if (found == 0) return std::nullopt;  // none of the class's cases in this record (another dtype set)
  return sum;
}

std::optional<double> class_score(const TuningDb& db, const std::vector<const task::ShapeSpec*>& shapes,
                                  const Params& params, int* registers, bool* wrong, const CaseSets* only) {
  double log_sum = 0;
  int regs = -1;
  for (const auto* s : shapes) {
    const DbRecord* r = db.find(s->name, params);
    if (!r) return std::nullopt;
    const auto t = record_time(*r, class_labels(only, s->name), wrong);
    if (!t) return std::nullopt;
    log_sum += std::log(*t);
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
      const std::set<std::string>* labels = class_labels(&co.cls.only_cases, s->name);
      if (const DbRecord* r = db.find(s->name, *co.winner)) row.used_us = record_time(*r, labels).value_or(0);
      for (const DbRecord* r : db.records_for_shape(s->name))
        if (const auto t = record_time(*r, labels); t && (row.own_best_us == 0 || *t < row.own_best_us)) {
          row.own_best_us = *t;
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

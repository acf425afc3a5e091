#include "report/landscape.hpp"

#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "search/tuner.hpp"
#include "search/tuning_db.hpp"
#include "task/device_config.hpp"

namespace ako::report {

namespace {

// Every params point recorded on any shape of the class, in the database's key order.
std::vector<search::Params> recorded_points(const search::TuningDb& db, const search::ShapeClass& cls) {
  std::set<std::string> seen;
  std::vector<search::Params> points;
  for (const auto* s : cls.shapes)
    for (const auto* r : db.records_for_shape(s->name))
      if (seen.insert(search::params_text(r->params)).second) points.push_back(r->params);
  return points;
}

ClassLandscape class_landscape(const task::TaskSpec& spec, const search::TuningDb& db, const search::ShapeClass& cls) {
  ClassLandscape out;
  out.name = cls.name;
  out.when = cls.when;
  for (const auto* s : cls.shapes) out.shapes.push_back(s->name);
  for (const auto& p : spec.solution.params) {
    out.param_names.push_back(p.name);
    out.param_values[p.name] = p.values;
  }
  out.chosen = cls.current;
  std::vector<search::Candidate> candidates;
  for (const auto& params : recorded_points(db, cls)) {
    bool refused = false, missing = false;
    for (const auto* s : cls.shapes) {
      const search::DbRecord* r = db.find(s->name, params);
      if (!r) missing = true;
      else if (r->refused_by_static_checks()) refused = true;
    }
    if (refused) {
      ++out.refused;
      continue;
    }
    int registers = -1;
    bool wrong = false;
    const auto score = search::class_score(db, cls.shapes, params, &registers, &wrong, &cls.only_cases);
    if (score) {
      out.variants.push_back({params, *score, registers});
      candidates.push_back({params, *score, registers});
      if (params == out.chosen) out.chosen_score = *score;
    } else if (wrong) {
      ++out.wrong;
    } else if (missing) {
      ++out.incomplete;
    }
  }
  if (const auto w = search::select_winner(candidates)) out.winner = LandscapeVariant{w->params, w->score, w->registers};
  return out;
}

}  // namespace

Landscape load_landscape(task::TaskSpec& spec, const std::filesystem::path& db_file, const std::string& device) {
  std::optional<search::DbContext> ctx;
  if (!device.empty()) ctx = search::TuningDb::last_context(db_file, spec.name, device);
  if (!ctx) ctx = search::TuningDb::last_context(db_file, spec.name);
  if (!ctx)
    throw Error(fmt::format("{}: no tuning records of task {} (make them with `ako tune task {}` on a GPU machine)",
                            db_file.string(), spec.name, spec.name));
  const search::TuningDb db(db_file, *ctx);
  Landscape l;
  l.db_file = db_file.string();
  l.device = ctx->device;
  l.arch = ctx->arch;
  l.source_hash = ctx->source_hash;
  l.centre = ctx->centre == search::kCentreMedian ? "median" : "IQM";
  l.records = db.size();
  l.other_context = static_cast<size_t>(db.other_context);
  const ConfigUsed used = task::use_device_config(spec, ctx->device, task::kDeviceFromReplay);
  l.config_file = used.file;
  l.config_message = used.message;
  std::vector<const task::ShapeSpec*> shapes;
  for (const auto& s : spec.shapes) shapes.push_back(&s);
  for (const auto& cls : search::make_classes(spec, shapes, search::ClassMode::config))
    if (!cls.shapes.empty()) l.classes.push_back(class_landscape(spec, db, cls));
  return l;
}

}  // namespace ako::report

// JSON for the run result (schema documented in harness/result/SCHEMA.md).
#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "result/run_result.hpp"

namespace ako {

using nlohmann::json;

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::correct: return "correct";
    case Verdict::incorrect: return "incorrect";
    case Verdict::failed: return "failed";
    case Verdict::skipped: return "skipped";
  }
  return "skipped";
}

Verdict parse_verdict(const std::string& s) {
  if (s == "correct") return Verdict::correct;
  if (s == "incorrect") return Verdict::incorrect;
  if (s == "failed") return Verdict::failed;
  if (s == "skipped") return Verdict::skipped;
  throw Error("unknown verdict '" + s + "' (expected correct, incorrect, failed or skipped)");
}

namespace {
// Reads an optional member into `out`, leaving the default when absent or null.
template <typename T>
void opt(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}
}  // namespace



std::string timing_centre_name(const RunResult& r) {
  const auto old = [](const std::optional<TimingStats>& t) { return t && t->centre_is_median; };
  for (const auto& c : r.cases) {
    if (old(c.reference_time) || old(c.solution_time)) return "median";
    for (const auto& b : c.baselines)
      if (old(b.time)) return "median";
  }
  return "IQM";
}

void to_json(json& j, const TimingStats& v) {
  j = json{{"method", v.method},       {"cold_l2", v.cold_l2},     {"l2_flush", v.l2_flush},
           {"samples", v.samples},     {"warmup", v.warmup},       {"median_us", v.median_us},
           {"median_ci_rel", v.median_ci_rel},
           {"min_us", v.min_us},       {"max_us", v.max_us},       {"mean_us", v.mean_us},
           {"stdev_us", v.stdev_us},   {"stable", v.stable},       {"kernels_per_sample", v.kernels_per_sample},
           {"launch_audit", v.launch_audit}};
  // A result read from before the IQM is written back as it was: its centre is the median.
  if (v.centre_is_median) {
    j["ci_rel"] = v.median_ci_rel;
  } else {
    j["iqm_us"] = v.iqm_us;
    j["ci_rel"] = v.ci_rel;
  }
}

void from_json(const json& j, TimingStats& v) {
  v = TimingStats{};
  opt(j, "method", v.method);
  opt(j, "cold_l2", v.cold_l2);
  opt(j, "l2_flush", v.l2_flush);
  opt(j, "samples", v.samples);
  opt(j, "warmup", v.warmup);
  opt(j, "median_us", v.median_us);
  opt(j, "min_us", v.min_us);
  opt(j, "max_us", v.max_us);
  opt(j, "mean_us", v.mean_us);
  opt(j, "stdev_us", v.stdev_us);
  opt(j, "ci_rel", v.ci_rel);
  opt(j, "stable", v.stable);
  opt(j, "kernels_per_sample", v.kernels_per_sample);
  opt(j, "launch_audit", v.launch_audit);
  if (const auto it = j.find("iqm_us"); it != j.end() && !it->is_null()) {
    v.iqm_us = it->get<double>();
    opt(j, "median_ci_rel", v.median_ci_rel);
  } else {
    // Timed before the IQM: ci_rel was the median's. Its median is the centre.
    v.centre_is_median = true;
    v.iqm_us = v.median_us;
    v.median_ci_rel = v.ci_rel;
  }
}

void to_json(json& j, const ErrorStats& v) {
  j = json{{"max_abs", v.max_abs},         {"max_rel", v.max_rel},     {"checked", v.checked},
           {"mismatches", v.mismatches},   {"nonfinite", v.nonfinite}, {"worst_index", v.worst_index},
           {"worst_got", v.worst_got},     {"worst_want", v.worst_want}, {"buffer", v.buffer}};
  // JSON has no NaN/Inf: a non-finite worst value is written as null.
  for (const char* k : {"max_abs", "max_rel", "worst_got", "worst_want"})
    if (!std::isfinite(j[k].get<double>())) j[k] = nullptr;
}
void from_json(const json& j, ErrorStats& v) {
  opt(j, "max_abs", v.max_abs);
  opt(j, "max_rel", v.max_rel);
  opt(j, "checked", v.checked);
  opt(j, "mismatches", v.mismatches);
  opt(j, "nonfinite", v.nonfinite);
  opt(j, "worst_index", v.worst_index);
  opt(j, "worst_got", v.worst_got);
  opt(j, "worst_want", v.worst_want);
  opt(j, "buffer", v.buffer);
}

void to_json(json& j, const PrecisionReport& v) {
  j = json{{"buffer", v.buffer},
           {"trial", v.trial},
           {"solution_rms", v.solution_rms},
           {"solution_max", v.solution_max},
           {"reference_rms", v.reference_rms},
           {"reference_max", v.reference_max},
           {"floor_rms", v.floor_rms},
           {"floor_max", v.floor_max},
           {"rms_factor", v.rms_factor},
           {"max_factor", v.max_factor},
           {"rms_ratio", v.rms_ratio},
           {"max_ratio", v.max_ratio},
           {"trials_checked", v.trials_checked},
           {"check_s", v.check_s},
           {"check_parts_s", v.check_parts_s}};
  // JSON has no NaN/Inf (a ratio over a zero yardstick): written as null.
  for (auto& x : j)
    if (x.is_number_float() && !std::isfinite(x.get<double>())) x = nullptr;
}
void from_json(const json& j, PrecisionReport& v) {
  opt(j, "buffer", v.buffer);
  opt(j, "trial", v.trial);
  opt(j, "solution_rms", v.solution_rms);
  opt(j, "solution_max", v.solution_max);
  opt(j, "reference_rms", v.reference_rms);
  opt(j, "reference_max", v.reference_max);
  opt(j, "floor_rms", v.floor_rms);
  opt(j, "floor_max", v.floor_max);
  opt(j, "rms_factor", v.rms_factor);
  opt(j, "max_factor", v.max_factor);
  opt(j, "rms_ratio", v.rms_ratio);
  opt(j, "max_ratio", v.max_ratio);
  opt(j, "trials_checked", v.trials_checked);
  opt(j, "check_s", v.check_s);
  opt(j, "check_parts_s", v.check_parts_s);
}

void to_json(json& j, const BaselineResult& v) {
  j = json{{"name", v.name},
           {"verdict", verdict_name(v.verdict)},
           {"reason", v.reason},
           {"fault", v.fault},
           {"error", v.error},
           {"time", v.time ? json(*v.time) : json(nullptr)},
           {"gbps", v.gbps},
           {"pct_copy_bw", v.pct_copy_bw},
           {"speedup", v.speedup}};
}
void from_json(const json& j, BaselineResult& v) {
  opt(j, "name", v.name);
  if (j.contains("verdict")) v.verdict = parse_verdict(j.at("verdict").get<std::string>());
  opt(j, "reason", v.reason);
  opt(j, "fault", v.fault);
  opt(j, "error", v.error);
  if (j.contains("time") && !j["time"].is_null()) v.time = j["time"].get<TimingStats>();
  opt(j, "gbps", v.gbps);
  opt(j, "pct_copy_bw", v.pct_copy_bw);
  opt(j, "speedup", v.speedup);
}

void to_json(json& j, const CaseResult& v) {
  j = json{{"index", v.index},
           {"kind", v.kind},
           {"shape", v.shape},
           {"dims", v.dims},
           {"dtype", v.dtype},
           {"flags", v.flags},
           {"axes", v.axes},
           {"params", v.params},
           {"config_class", v.config_class},
           {"verdict", verdict_name(v.verdict)},
           {"reason", v.reason},
           {"fault", v.fault},
           {"error", v.error},
           {"trials", v.trials},
           {"seed", v.seed},
           {"reference_time", v.reference_time ? json(*v.reference_time) : json(nullptr)},
           {"solution_time", v.solution_time ? json(*v.solution_time) : json(nullptr)},
           {"bytes", v.bytes},
           {"elements", v.elements},
           {"speedup", v.speedup},
           {"gbps", v.gbps},
           {"pct_copy_bw", v.pct_copy_bw},
           {"size_copy_time", v.size_copy_time ? json(*v.size_copy_time) : json(nullptr)},
           {"size_copy_bytes", v.size_copy_bytes},
           {"pct_size_copy", v.pct_size_copy},
           {"input_sets", v.input_sets},
           {"sanitizer", v.sanitizer},
           {"baselines", v.baselines},
           {"clock", v.clock ? json(*v.clock) : json(nullptr)},
           {"precision", v.precision ? json(*v.precision) : json(nullptr)}};
}
void from_json(const json& j, CaseResult& v) {
  opt(j, "index", v.index);
  opt(j, "kind", v.kind);
  opt(j, "shape", v.shape);
  opt(j, "dims", v.dims);
  opt(j, "dtype", v.dtype);
  opt(j, "flags", v.flags);
  opt(j, "axes", v.axes);
  opt(j, "params", v.params);
  opt(j, "config_class", v.config_class);
  if (j.contains("verdict")) v.verdict = parse_verdict(j.at("verdict").get<std::string>());
  opt(j, "reason", v.reason);
  opt(j, "fault", v.fault);
  opt(j, "error", v.error);
  opt(j, "trials", v.trials);
  opt(j, "seed", v.seed);
  if (j.contains("reference_time") && !j["reference_time"].is_null())
    v.reference_time = j["reference_time"].get<TimingStats>();
  if (j.contains("solution_time") && !j["solution_time"].is_null())
    v.solution_time = j["solution_time"].get<TimingStats>();
  opt(j, "bytes", v.bytes);
  opt(j, "elements", v.elements);
  opt(j, "speedup", v.speedup);
  opt(j, "gbps", v.gbps);
  opt(j, "pct_copy_bw", v.pct_copy_bw);
  if (j.contains("size_copy_time") && !j["size_copy_time"].is_null())
    v.size_copy_time = j["size_copy_time"].get<TimingStats>();
  opt(j, "size_copy_bytes", v.size_copy_bytes);
  opt(j, "pct_size_copy", v.pct_size_copy);
  opt(j, "input_sets", v.input_sets);
  opt(j, "sanitizer", v.sanitizer);
  opt(j, "baselines", v.baselines);
  if (j.contains("clock") && !j["clock"].is_null()) v.clock = j["clock"].get<ClockReport>();
  if (j.contains("precision") && !j["precision"].is_null()) v.precision = j["precision"].get<PrecisionReport>();
}



static json summary_json(const Summary& s) {
  return json{{"compiled", s.compiled},   {"cases", s.cases},         {"correct", s.correct},
              {"incorrect", s.incorrect}, {"failed", s.failed},       {"skipped", s.skipped},
              {"runtime_us", s.runtime_us}, {"ref_runtime_us", s.ref_runtime_us},
              {"speedup", s.speedup},     {"geomean_speedup", s.geomean_speedup}};
}

static Summary summary_from(const json& j) {
  Summary s;
  opt(j, "compiled", s.compiled);
  opt(j, "cases", s.cases);
  opt(j, "correct", s.correct);
  opt(j, "incorrect", s.incorrect);
  opt(j, "failed", s.failed);
  opt(j, "skipped", s.skipped);
  opt(j, "runtime_us", s.runtime_us);
  opt(j, "ref_runtime_us", s.ref_runtime_us);
  opt(j, "speedup", s.speedup);
  opt(j, "geomean_speedup", s.geomean_speedup);
  return s;
}

json to_json(const RunResult& r) {
  return json{{"schema", r.schema},     {"ako_version", r.ako_version}, {"task", r.task},
              {"started_at", r.started_at}, {"wall_s", r.wall_s},     {"options", r.options},
              {"device", r.device},     {"config", r.config},           {"builds", r.builds},           {"static_findings", r.static_findings}, {"cases", r.cases},
              {"summary", summary_json(r.summary)}, {"error", r.error}, {"phases", r.phases}};
}

RunResult run_result_from_json(const json& j) {
  if (!j.is_object()) throw Error("run result: expected a JSON object");
  const std::string schema = j.value("schema", "");
  if (schema != kRunResultSchema)
    throw Error("run result: schema '" + schema + "' is not '" + kRunResultSchema +
                "'; re-run `ako run` with this version of ako to regenerate it");
  try {
    RunResult r;
    r.schema = schema;
    opt(j, "ako_version", r.ako_version);
    opt(j, "task", r.task);
    opt(j, "started_at", r.started_at);
    opt(j, "wall_s", r.wall_s);
    opt(j, "phases", r.phases);
    opt(j, "options", r.options);
    opt(j, "device", r.device);
    opt(j, "config", r.config);  // absent in results written before per-device configs
    opt(j, "builds", r.builds);
    opt(j, "static_findings", r.static_findings);
    opt(j, "cases", r.cases);
    if (j.contains("summary")) r.summary = summary_from(j["summary"]);
    opt(j, "error", r.error);
    return r;
  } catch (const json::exception& e) {
    throw Error(std::string("run result: malformed document: ") + e.what());
  }
}

bool nothing_measured(const RunResult& r) {
  return r.summary.compiled && std::all_of(r.cases.begin(), r.cases.end(),
                                           [](const CaseResult& c) { return c.verdict == Verdict::skipped; });
}

void summarize(RunResult& r) {
  Summary s;
  s.compiled = r.summary.compiled;
  double log_sum = 0;
  int timed = 0;
  for (const auto& c : r.cases) {
    if (c.kind != "compare") {
      // A failing reference check still makes the run incorrect.
      if (c.verdict == Verdict::incorrect) ++s.incorrect;
      if (c.verdict == Verdict::failed) ++s.failed;
      continue;
    }
    ++s.cases;
    switch (c.verdict) {
      case Verdict::correct: ++s.correct; break;
      case Verdict::incorrect: ++s.incorrect; break;
      case Verdict::failed: ++s.failed; break;
      case Verdict::skipped: ++s.skipped; break;
    }
    if (c.verdict == Verdict::correct && c.reference_time && c.solution_time &&
        c.solution_time->iqm_us > 0) {
      s.runtime_us += c.solution_time->iqm_us;
      s.ref_runtime_us += c.reference_time->iqm_us;
      log_sum += std::log(c.reference_time->iqm_us / c.solution_time->iqm_us);
      ++timed;
    }
  }
  if (s.runtime_us > 0) s.speedup = s.ref_runtime_us / s.runtime_us;
  if (timed > 0) s.geomean_speedup = std::exp(log_sum / timed);
  r.summary = s;
}

}  // namespace ako

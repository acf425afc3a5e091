#include "validate/validate_result.hpp"

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_optional.hpp"

namespace ako::validate {

namespace {

using nlohmann::json;

// Reads one field, naming the file and the field when it is missing or of another type.
template <class T>
T field(const json& j, const char* key, const std::string& src, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw SpecError(src, where + key, "missing");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw SpecError(src, where + key, "has the wrong type (" + std::string(j.at(key).type_name()) + ")");
  }
}

std::vector<std::pair<std::string, int>> blocks(const json& j, const char* key, const std::string& src) {
  std::vector<std::pair<std::string, int>> out;
  const json list = field<json>(j, key, src, "");
  for (const auto& b : list) {
    if (!b.is_array() || b.size() != 2 || !b[0].is_string() || !b[1].is_number_integer())
      throw SpecError(src, key, "expected [[kind, count], ...]");
    out.emplace_back(b[0].get<std::string>(), b[1].get<int>());
  }
  return out;
}

ModeTimes read_mode(const std::string& mode, const json& m, const std::string& src, const std::string& where) {
  ModeTimes t;
  t.mode = mode;
  const json step = field<json>(m, "step_ms", src, where);
  t.step_ms = field<double>(step, "median", src, where + "step_ms.");
  t.min_ms = field<double>(step, "min", src, where + "step_ms.");
  t.max_ms = field<double>(step, "max", src, where + "step_ms.");
  const json gpu = field<json>(m, "gpu_us", src, where);
  t.total_us = field<double>(gpu, "total", src, where + "gpu_us.");
  const json fams = field<json>(gpu, "families", src, where + "gpu_us.");
  for (const auto& [fam, us] : fams.items()) {
    t.families[fam] = us.get<double>();
    t.family_us += us.get<double>();
  }
  return t;
}

}  // namespace

const ModeTimes* BackendResult::mode(const std::string& m) const {
  for (const auto& t : modes)
    if (t.mode == m) return &t;
  return nullptr;
}

const BackendResult* ValidateResult::backend(const std::string& name) const {
  for (const auto& b : backends)
    if (b.name == name) return &b;
  return nullptr;
}

ValidateResult parse_validate_json(const std::string& text, const std::string& src) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(src + ": not JSON (" + std::string(e.what()) + ")");
  }
  const auto schema = field<std::string>(j, "schema", src, "");
  if (schema != kSchema) throw SpecError(src, "schema", std::string("expected ") + kSchema + ", got " + schema);
  ValidateResult r;
  r.model = field<std::string>(j, "model", src, "");
  r.note = j.value("note", "");
  r.device = field<std::string>(j, "device", src, "");
  r.tiny = j.value("tiny", false);
  r.graph = j.value("graph", false);
  r.steps = field<int>(j, "steps", src, "");
  r.blocks_run = blocks(j, "blocks_run", src);
  r.blocks_real = blocks(j, "blocks_real", src);
  r.blocks_note = j.value("blocks_note", "");
  for (const char* name : {"torch", "engine", "ako"}) {
    const json& all = field<json>(j, "backends", src, "");
    if (!all.contains(name)) continue;
    const json& b = all[name];
    const std::string where = std::string("backends.") + name + ".";
    BackendResult br;
    br.name = name;
    for (const char* mode : {"eager", "graph"})
      if (b.contains(mode)) br.modes.push_back(read_mode(mode, b[mode], src, where + mode + "."));
    if (b.contains("output") && b["output"].is_object()) {
      br.rel_l2 = read_opt<double>(b["output"], "rel_l2");
      br.max_abs = read_opt<double>(b["output"], "max_abs");
    }
    // the ako backend's sites are required (its fallbacks decide verdicts); the engine's are listed when present
    const bool ako = std::string(name) == "ako", engine = std::string(name) == "engine";
    const json sites = ako ? field<json>(b, "sites", src, where)
                           : (engine && b.contains("sites") ? field<json>(b, "sites", src, where) : json::array());
    for (const auto& s : sites)
      (ako ? r.ako_sites : r.engine_sites)
          .push_back({field<std::string>(s, "site", src, where + "sites[]."),
                      field<std::string>(s, "family", src, where + "sites[]."),
                      field<std::string>(s, "impl", src, where + "sites[]."), field<int>(s, "calls", src, where + "sites[].")});
    r.backends.push_back(std::move(br));
  }
  if (!r.backend("torch")) throw SpecError(src, "backends.torch", "missing (every run has the torch backend)");
  const json families = field<json>(j, "families", src, "");
  for (const auto& [fam, f] : families.items()) {
    const std::string where = "families." + fam + ".";
    FamilyVerdict v;
    v.family = fam;
    v.verdict = field<std::string>(f, "verdict", src, where);
    v.reason = f.value("reason", "");
    v.sites = field<int>(f, "sites", src, where);
    v.ported = field<bool>(f, "ported", src, where);
    v.micro_speedup = read_opt<double>(f, "micro_speedup");
    if (f.contains("step_speedup") && f["step_speedup"].is_object())
      for (const auto& [mode, s] : f["step_speedup"].items())
        if (s.is_number()) v.step_speedup[mode] = s.get<double>();
    r.families.push_back(std::move(v));
  }
  if (j.contains("step_speedup"))
    for (const auto& [mode, s] : j["step_speedup"].items()) r.step_speedup[mode] = s.get<double>();
  r.ported = j.value("ported", std::vector<std::string>{});
  if (j.contains("ako_unavailable") && j["ako_unavailable"].is_string()) r.ako_unavailable = j["ako_unavailable"];
  r.verdict = field<std::string>(j, "verdict", src, "");
  if (r.verdict != "pass" && r.verdict != "fail" && r.verdict != "smoke")
    throw SpecError(src, "verdict", "expected pass, fail or smoke, got " + r.verdict);
  r.failures = field<std::vector<std::string>>(j, "failures", src, "");
  if (r.verdict == "pass" && !r.failures.empty())
    throw SpecError(src, "verdict", "pass with " + std::to_string(r.failures.size()) + " failure(s) listed");
  for (const auto& f : r.families)
    if (r.verdict == "pass" && (f.verdict == "fallback" || f.verdict == "does not transfer" || f.verdict == "unmeasured"))
      throw SpecError(src, "verdict", "pass, but family " + f.family + " is '" + f.verdict + "'");
  return r;
}

ValidateResult read_validate_json(const std::filesystem::path& file) {
  return parse_validate_json(read_file(file), file.string());
}

}  // namespace ako::validate

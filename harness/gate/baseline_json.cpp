// ako.baseline/2 <-> BaselineFile (and ako.baseline/1, read as one entry). Strict on read: a baseline decides whether CI passes, so a
// misspelt or mistyped field is an error, never a silent default.
#include <algorithm>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "gate/baseline.hpp"

namespace ako::gate {

using nlohmann::json;

namespace {

// Reads one field with a path for the error message ("tasks.rmsnorm.threshold_pct").
template <typename T>
T field(const json& obj, const char* key, const std::string& where, std::optional<T> fallback = std::nullopt) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    throw Error(fmt::format("baseline: field '{}{}' is missing", where, key));
  }
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw Error(fmt::format("baseline: field '{}{}' has the wrong type ({})", where, key, it->type_name()));
  }
}

const json& object_at(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_object())
    throw Error(fmt::format("baseline: field '{}{}' must be an object", where, key));
  return *it;
}

json timing_json(const BaselineTiming& t) {
  json j = {{"median_us", t.median_us}, {"ci_rel", t.ci_rel}, {"samples", t.samples},
            {"method", t.method},       {"cold_l2", t.cold_l2}};
  if (!t.before_iqm()) j["iqm_us"] = t.iqm_us;  // absent: an entry timed before the IQM keeps its bytes
  return j;
}

BaselineTiming timing_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw Error("baseline: field '" + where + "' must be an object or null");
  BaselineTiming t;
  t.median_us = field<double>(j, "median_us", where + ".");
  t.ci_rel = field<double>(j, "ci_rel", where + ".");
  t.samples = field<int>(j, "samples", where + ".");
  t.method = field<std::string>(j, "method", where + ".");
  t.cold_l2 = field<bool>(j, "cold_l2", where + ".");
  t.iqm_us = field<double>(j, "iqm_us", where + ".", 0.0);  // absent before the IQM
  if (j.contains("iqm_us") && !j["iqm_us"].is_null() && !(t.iqm_us > 0))
    throw Error("baseline: field '" + where + ".iqm_us' must be > 0");
  if (!(t.median_us > 0)) throw Error("baseline: field '" + where + ".median_us' must be > 0");
  if (t.ci_rel < 0) throw Error("baseline: field '" + where + ".ci_rel' must be >= 0");
  return t;
}

json optional_timing(const std::optional<BaselineTiming>& t) { return t ? timing_json(*t) : json(nullptr); }

std::optional<BaselineTiming> optional_timing_from(const json& c, const char* key, const std::string& where) {
  const auto it = c.find(key);
  if (it == c.end() || it->is_null()) return std::nullopt;
  return timing_from(*it, where + key);
}

json budget_json(const ResourceBudget& b) {
  return {{"registers", b.registers},       {"spill_stores", b.spill_stores}, {"spill_loads", b.spill_loads},
          {"stack_bytes", b.stack_bytes},   {"shared_bytes", b.shared_bytes}};
}

ResourceBudget budget_from(const json& j, const std::string& where) {
  ResourceBudget b;
  b.registers = field<int>(j, "registers", where);
  b.spill_stores = field<int>(j, "spill_stores", where);
  b.spill_loads = field<int>(j, "spill_loads", where);
  b.stack_bytes = field<int>(j, "stack_bytes", where, -1);
  b.shared_bytes = field<int>(j, "shared_bytes", where);
  return b;
}

BaselineDevice device_from(const json& d, const std::string& where) {
  if (!d.is_object()) throw Error("baseline: field '" + where + "' must be an object or null");
  const std::string at = where + ".";
  BaselineDevice dev;
  dev.name = field<std::string>(d, "name", at);
  dev.arch = field<std::string>(d, "arch", at);
  dev.driver_version = field<int>(d, "driver_version", at, 0);
  dev.sm_count = field<int>(d, "sm_count", at, 0);
  dev.copy_bandwidth_gbs = field<double>(d, "copy_bandwidth_gbs", at, 0.0);
  if (dev.name.empty()) throw Error("baseline: field '" + at + "name' is empty (use null for no device)");
  return dev;
}

json task_json(const BaselineTask& t) {
  json tj;
  tj["threshold_pct"] = t.threshold_pct ? json(*t.threshold_pct) : json(nullptr);
  tj["cases"] = json::object();
  for (const auto& [label, c] : t.cases) {
    tj["cases"][label] = {{"kind", c.kind}, {"verdict", c.verdict},
                          {"solution", optional_timing(c.solution)}, {"reference", optional_timing(c.reference)}};
    // Only when present, so entries written before baselines existed keep their bytes.
    for (const auto& [name, timing] : c.peers) tj["cases"][label]["baselines"][name] = timing_json(timing);
  }
  tj["kernels"] = json::object();
  for (const auto& [role, by_name] : t.kernels)
    for (const auto& [expr, k] : by_name) tj["kernels"][role][expr] = {{"file", k.file}, {"budget", budget_json(k.budget)}};
  return tj;
}

BaselineCase case_from(const json& cj, const std::string& cw, bool has_device) {
  if (!cj.is_object()) throw Error("baseline: field '" + cw + "' must be an object");
  BaselineCase c;
  c.kind = field<std::string>(cj, "kind", cw);
  c.verdict = field<std::string>(cj, "verdict", cw);
  c.solution = optional_timing_from(cj, "solution", cw);
  c.reference = optional_timing_from(cj, "reference", cw);
  if (const auto peers = cj.find("baselines"); peers != cj.end() && !peers->is_null()) {
    if (!peers->is_object()) throw Error("baseline: field '" + cw + "baselines' must be an object");
    for (const auto& [name, tj] : peers->items()) c.peers[name] = timing_from(tj, cw + "baselines." + name + ".");
  }
  if ((c.solution || c.reference || !c.peers.empty()) && !has_device)
    throw Error("baseline: '" + cw + "' has timings but the baseline names no device they were measured on");
  return c;
}

BaselineTask task_from(const json& tj, const std::string& name_path, bool has_device) {
  const std::string where = name_path + ".";
  if (!tj.is_object()) throw Error("baseline: field '" + name_path + "' must be an object");
  BaselineTask t;
  if (const auto th = tj.find("threshold_pct"); th != tj.end() && !th->is_null()) {
    t.threshold_pct = field<double>(tj, "threshold_pct", where);
    if (!(*t.threshold_pct >= 0)) throw Error("baseline: field '" + where + "threshold_pct' must be >= 0");
  }
  for (const auto& [label, cj] : object_at(tj, "cases", where).items())
    t.cases[label] = case_from(cj, where + "cases." + label + ".", has_device);
  for (const auto& [role, kj] : object_at(tj, "kernels", where).items()) {
    if (role != "reference" && role != "solution")
      throw Error("baseline: field '" + where + "kernels." + role + "': role must be reference or solution");
    if (!kj.is_object()) throw Error("baseline: field '" + where + "kernels." + role + "' must be an object");
    for (const auto& [expr, k] : kj.items()) {
      const std::string kw = where + "kernels." + role + "." + expr + ".";
      if (!k.is_object()) throw Error("baseline: field '" + kw + "' must be an object");
      BaselineKernel bk;
      bk.file = field<std::string>(k, "file", kw, std::string());
      bk.budget = budget_from(object_at(k, "budget", kw), kw + "budget.");
      t.kernels[role][expr] = bk;
    }
  }
  return t;
}

}  // namespace

json to_json(const Baseline& b) {
  json j;
  j["written_by"] = b.written_by;
  j["updated_at"] = b.updated_at;
  j["arch"] = b.arch;
  j["cuda_version"] = b.cuda_version;
  j["nvrtc_version"] = b.nvrtc_version;
  j["timings"] = b.has_timings() ? "measured on the device below"
                                 : "none: resources-only baseline (made without a GPU); "
                                   "`ako gate --update-baseline` on the target GPU fills them in";
  if (b.device)
    j["device"] = {{"name", b.device->name},
                   {"arch", b.device->arch},
                   {"driver_version", b.device->driver_version},
                   {"sm_count", b.device->sm_count},
                   {"copy_bandwidth_gbs", b.device->copy_bandwidth_gbs}};
  else
    j["device"] = nullptr;
  j["threshold_pct"] = b.threshold_pct;
  j["tasks"] = json::object();
  for (const auto& [name, t] : b.tasks) j["tasks"][name] = task_json(t);
  return j;
}

Baseline baseline_from_json(const json& j, const std::string& where) {
  if (!j.is_object())
    throw Error("baseline: " + (where.empty() ? std::string("not a JSON object") : "field '" + where + "' must be an object"));
  const std::string at = where.empty() ? "" : where + ".";
  Baseline b;
  b.written_by = field<std::string>(j, "written_by", at, std::string());
  b.updated_at = field<std::string>(j, "updated_at", at, std::string());
  b.arch = field<std::string>(j, "arch", at);
  b.cuda_version = field<std::string>(j, "cuda_version", at, std::string());
  b.nvrtc_version = field<std::string>(j, "nvrtc_version", at, std::string());
  b.threshold_pct = field<double>(j, "threshold_pct", at, kDefaultThresholdPct);
  if (!(b.threshold_pct >= 0)) throw Error("baseline: field '" + at + "threshold_pct' must be >= 0");
  if (const auto d = j.find("device"); d != j.end() && !d->is_null()) b.device = device_from(*d, at + "device");
  for (const auto& [name, tj] : object_at(j, "tasks", at).items())
    b.tasks[name] = task_from(tj, at + "tasks." + name, b.device.has_value());
  return b;
}

bool timed_before_iqm(const Baseline& b) {
  for (const auto& [name, t] : b.tasks)
    for (const auto& [label, c] : t.cases)
      if (c.solution && c.solution->before_iqm()) return true;
  return false;
}

json to_json(const BaselineFile& f) {
  json j;
  j["schema"] = kBaselineSchema;
  j["devices"] = json::object();
  for (const auto& [name, entry] : f.devices) j["devices"][name] = to_json(entry);
  return j;
}

BaselineFile baseline_file_from_json(const json& j) {
  if (!j.is_object()) throw Error("baseline: not a JSON object");
  const auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string())
    throw Error(std::string("baseline: no 'schema' field; expected \"") + kBaselineSchema + "\"");
  BaselineFile f;
  f.read_schema = schema->get<std::string>();
  if (f.read_schema == kBaselineSchemaV1) {
    // One device, as the whole file: keyed by the device it was measured on.
    Baseline b = baseline_from_json(j);
    f.devices[b.device ? b.device->name : std::string(kResourcesOnlyEntry)] = std::move(b);
    return f;
  }
  if (f.read_schema != kBaselineSchema)
    throw Error(fmt::format("baseline: schema {} is not {} (this ako reads {} and {}); re-create it with "
                            "`ako gate --update-baseline`",
                            schema->dump(), kBaselineSchema, kBaselineSchema, kBaselineSchemaV1));
  for (const auto& [name, ej] : object_at(j, "devices", "").items()) {
    Baseline b = baseline_from_json(ej, "devices." + name);
    if (name.empty()) throw Error("baseline: field 'devices' has an entry with an empty name");
    if (b.device && b.device->name != name)
      throw Error(fmt::format("baseline: field 'devices.{0}.device.name' is \"{1}\": an entry with timings is keyed by "
                              "the device they were measured on (rename the key to \"{1}\")",
                              name, b.device->name));
    f.devices[name] = std::move(b);
  }
  return f;
}

namespace {

std::string normalized(std::string name) {
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
}

}  // namespace

const Baseline* BaselineFile::find(const std::string& device) const {
  for (const auto& [name, b] : devices)
    if (normalized(name) == normalized(device)) return &b;
  return nullptr;
}

std::string BaselineFile::key_of(const std::string& device) const {
  for (const auto& [name, b] : devices)
    if (normalized(name) == normalized(device)) return name;
  return normalized(device);  // CUDA names have spaces: a new entry is keyed as the GPU will name it
}

std::string BaselineFile::entry_names() const {
  std::string out;
  for (const auto& [name, b] : devices) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

BaselineFile load_baseline(const std::filesystem::path& file) {
  const std::string text = read_file(file);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(file.string() + ": not JSON: " + e.what());
  }
  try {
    return baseline_file_from_json(j);
  } catch (const Error& e) {
    throw Error(file.string() + ": " + e.what());
  }
}

void save_baseline(const std::filesystem::path& file, const BaselineFile& f) {
  write_file_atomically(file, to_json(f).dump(2) + "\n");
}

}  // namespace ako::gate

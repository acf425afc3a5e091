// The solution's config folder: one ako.config/1 file per device plus default.json, all read
// and checked at load time; one installed per command (see device_config.hpp).
#include "task/device_config.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/json_field.hpp"

namespace ako::task {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kDevicePrefix = "device_name=";
constexpr std::string_view kJsonSuffix = ".json";

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

DeviceConfig read_config_file(const TaskSpec& spec, const fs::path& relative, const std::string& entry) {
  const fs::path path = spec.root / relative;
  std::ifstream in(path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(path.string(), "$", fmt::format("expected a valid JSON document ({})", e.what()));
  }
  DeviceConfig c;
  c.entry = entry;
  c.file = relative;
  c.classes = parse_config(doc, path, spec, &c.source);
  return c;
}

// "solution/rmsnorm/configs/" for messages.
std::string folder_text(const TaskSpec& spec) { return spec.solution.config.string() + "/"; }

std::string device_files_text(const TaskSpec& spec) {
  const auto names = device_config_entries(spec);
  return names.empty() ? std::string("none") : join_names(names);
}

// Why the device was asked for, for the message.
std::string reason_text(const std::string& source) {
  if (source == kDeviceFromGpu) return "the GPU here";
  if (source == kDeviceFromBaseline) return "a baseline entry's device";
  if (source == kDeviceFromReplay) return "the device the replayed records were measured on";
  return "named by " + source;
}

void install(TaskSpec& spec, const DeviceConfig* chosen) {
  spec.config_present = chosen != nullptr;
  spec.config_file = chosen ? chosen->file : fs::path();
  spec.config_source = chosen ? chosen->source : std::string();
  spec.config_classes = chosen ? chosen->classes : std::vector<ConfigClass>{};
}

// The message when no file of the device's own is used.
std::string fallback_message(const TaskSpec& spec, const std::string& device, const std::string& source,
                             const DeviceConfig* fallback) {
  const std::string tail = fallback ? std::string("using ") + kDefaultConfigFile
                                    : std::string("no ") + kDefaultConfigFile +
                                          " either: every case uses the first allowed values";
  if (device.empty())
    return fallback ? fmt::format("{} (no GPU and no --device; --device NAME picks a device's config)",
                                  fallback->file.string())
                    : fmt::format("none: no {} in {} (no GPU and no --device); every case uses the first allowed "
                                  "values",
                                  kDefaultConfigFile, folder_text(spec));
  if (device == kDefaultEntry)
    return fallback ? fmt::format("{} ({} {})", fallback->file.string(), source, device)
                    : fmt::format("none: no {} in {}; every case uses the first allowed values", kDefaultConfigFile,
                                  folder_text(spec));
  return fmt::format("no tuned config for {} in {} (device files: {}); {}", device, folder_text(spec),
                     device_files_text(spec), tail);
}

}  // namespace

std::string device_config_file_name(const std::string& device) {
  std::string name = device;
  if (name.rfind(kDevicePrefix, 0) == 0 && ends_with(name, kJsonSuffix))
    name = name.substr(kDevicePrefix.size(), name.size() - kDevicePrefix.size() - kJsonSuffix.size());
  std::replace(name.begin(), name.end(), ' ', '_');
  return std::string(kDevicePrefix) + name + std::string(kJsonSuffix);
}

std::optional<std::string> device_of_config_file(const std::string& file_name) {
  if (file_name.rfind(kDevicePrefix, 0) != 0 || !ends_with(file_name, kJsonSuffix)) return std::nullopt;
  std::string name = file_name.substr(kDevicePrefix.size(), file_name.size() - kDevicePrefix.size() - kJsonSuffix.size());
  if (name.empty()) return std::nullopt;
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
}

void load_device_configs(TaskSpec& spec) {
  spec.configs.clear();
  install(spec, nullptr);
  if (spec.solution.config.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(spec.root / spec.solution.config, ec)) return;  // not tuned yet: first allowed values
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(spec.root / spec.solution.config))
    if (e.is_regular_file() && e.path().extension() == kJsonSuffix) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::optional<DeviceConfig> fallback;
  for (const auto& name : names) {
    const fs::path relative = spec.solution.config / name;
    if (name == kDefaultConfigFile) {
      fallback = read_config_file(spec, relative, kDefaultEntry);
    } else if (const auto device = device_of_config_file(name)) {
      spec.configs.push_back(read_config_file(spec, relative, *device));
    } else {
      throw SpecError((spec.root / relative).string(), "$",
                      fmt::format("expected a config file named {} or device_name=<CUDA device name, spaces as _>.json "
                                  "(as vLLM and SGLang name per-device configs), got \"{}\"",
                                  kDefaultConfigFile, name));
    }
  }
  if (fallback) spec.configs.push_back(std::move(*fallback));
  install(spec, find_device_config(spec, kDefaultEntry));
}

std::vector<std::string> device_config_entries(const TaskSpec& spec) {
  std::vector<std::string> out;
  for (const auto& c : spec.configs)
    if (c.entry != kDefaultEntry) out.push_back(c.entry);
  return out;
}

const DeviceConfig* find_device_config(const TaskSpec& spec, const std::string& device) {
  const bool wants_default = device == kDefaultEntry;
  const std::string file_name = wants_default ? std::string(kDefaultConfigFile) : device_config_file_name(device);
  for (const auto& c : spec.configs)
    if (c.file.filename() == file_name) return &c;
  return nullptr;
}

ConfigUsed use_device_config(TaskSpec& spec, const std::string& device, const std::string& source) {
  ConfigUsed used;
  used.device = device;
  used.device_source = device.empty() ? kDeviceFromNone : source;
  const DeviceConfig* own = device.empty() || device == kDefaultEntry ? nullptr : find_device_config(spec, device);
  const DeviceConfig* chosen = own ? own : find_device_config(spec, kDefaultEntry);
  install(spec, chosen);
  used.entry = chosen ? chosen->entry : "none";
  used.file = chosen ? chosen->file.string() : std::string();
  used.fallback = !device.empty() && device != kDefaultEntry && !own;
  if (spec.solution.config.empty())
    used.message = "none: the task names no solution.config; every case uses the first allowed values";
  else if (own)
    used.message = fmt::format("{} (the config for {}, {})", own->file.string(), own->entry, reason_text(used.device_source));
  else
    used.message = fallback_message(spec, device, used.device_source, chosen);
  return used;
}

}  // namespace ako::task

#include "port/render_dispatch.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "port/cpp_expr.hpp"
#include "task/device_config.hpp"
#include "task/json_field.hpp"

namespace ako::port {

namespace {

bool is_default(const task::DeviceConfig& c) { return c.entry == task::kDefaultEntry; }

std::string quoted_source(const task::DeviceConfig& c) {
  return c.source.empty() ? std::string("no source recorded") : "\"" + c.source + "\"";
}

// "NVIDIA_H100_80GB_HBM3": the device name as its config file spells it (and as the generated
// code compares it, after turning the CUDA name's spaces into `_`).
std::string file_spelling(const std::string& device) {
  std::string name = task::device_config_file_name(device);
  return name.substr(std::string("device_name=").size(), name.size() - std::string("device_name=.json").size());
}

// One config's class dispatch: first match wins, a shape no class takes gets the first allowed
// values (harness/task/config.cpp).
std::string class_dispatch(const task::TaskSpec& s, const std::string& function, const task::DeviceConfig* config,
                           const std::string& what, const DispatchSignature& sig) {
  std::string out = fmt::format(
      "// {}: the classes of {} ({}) in order, first match wins\n"
      "// (as `ako run` picks them); a shape no class takes gets the first allowed values.\n"
      "template <typename DType{}>\n"
      "void {}(DLDevice device, {}) {{\n{}",
      what, config ? config->file.string() : std::string("no config file"),
      config ? quoted_source(*config) : std::string("none"), sig.flag_tparams, function, sig.params, sig.flag_consts);
  auto call = [&](const std::map<std::string, int64_t>& params) {
    std::string targs = "DType" + sig.flag_targs;
    for (const auto& p : s.solution.params) {
      const auto it = params.find(p.name);
      targs += ", " + std::to_string(it != params.end() ? it->second : p.values.front());
    }
    return fmt::format("launch<{}>(device, {})", targs, sig.args);
  };
  if (config)
    for (const auto& c : config->classes) {
      std::string values;
      for (const auto& [k, v] : c.params) values += (values.empty() ? "" : ", ") + k + "=" + std::to_string(v);
      const std::string cond = c.when.empty() ? "true" : host_expression(s, c.when);
      out += fmt::format("  if ({}) return {};  // {}: {}\n", cond, call(c.params), c.name, values);
    }
  out += fmt::format("  return {};  // no class matched: first allowed values\n}}\n", call({}));
  return out;
}

// The device lookup: the index of the tensors' device among the baked device names, -1 for
// any other device. The mutex guards a cache of one entry per device ordinal: the name of a
// device never changes and cudaGetDeviceProperties is far slower than a launch.
std::string device_lookup(const PortNames& n, const std::vector<const task::DeviceConfig*>& devices) {
  std::string names;
  for (const auto* d : devices) names += fmt::format("      \"{}\",  // {}\n", file_spelling(d->entry), d->file.string());
  return fmt::format(
      "// Which baked config serves CUDA device `ordinal`: its index below, or -1 (default.json's).\n"
      "inline int config_for_device(int ordinal) {{\n"
      "  using namespace host;\n"
      "  static constexpr const char* kDevices[] = {{\n{0}  }};\n"
      "  static std::mutex mutex;\n"
      "  static std::map<int, int> known;\n"
      "  std::lock_guard<std::mutex> lock(mutex);\n"
      "  if (const auto it = known.find(ordinal); it != known.end()) return it->second;\n"
      "  cudaDeviceProp prop{{}};\n"
      "  RuntimeCheck(cudaGetDeviceProperties(&prop, ordinal) == cudaSuccess, \"{1}: cannot read the name of CUDA device \",\n"
      "               ordinal);\n"
      "  std::string name = prop.name;  // as SGLang and vLLM name config files: spaces as '_'\n"
      "  std::replace(name.begin(), name.end(), ' ', '_');\n"
      "  int index = -1;\n"
      "  for (int i = 0; i < static_cast<int>(std::size(kDevices)); ++i)\n"
      "    if (name == kDevices[i]) index = i;\n"
      "  return known[ordinal] = index;\n"
      "}}\n",
      names, n.host_struct);
}

}  // namespace

std::vector<task::DeviceConfig> configs_to_bake(const task::TaskSpec& spec, const std::vector<std::string>& devices) {
  for (const auto& d : devices)
    if (d != task::kDefaultEntry && !task::find_device_config(spec, d)) {
      const auto known = task::device_config_entries(spec);
      throw Error(fmt::format("--device {}: no config file for it in {}/ (device files: {}); default.json is always "
                              "baked in for other devices",
                              d, spec.solution.config.string(), known.empty() ? std::string("none") : task::join_names(known)));
    }
  std::vector<task::DeviceConfig> out;
  for (const auto& c : spec.configs) {
    const bool wanted = devices.empty() || std::any_of(devices.begin(), devices.end(), [&](const std::string& d) {
      return task::device_config_file_name(d) == task::device_config_file_name(c.entry);
    });
    if (is_default(c) || wanted) out.push_back(c);
  }
  return out;
}

std::string render_dispatch(const task::TaskSpec& s, const PortNames& n, const std::vector<task::DeviceConfig>& baked,
                            const DispatchSignature& sig) {
  std::vector<const task::DeviceConfig*> devices;
  const task::DeviceConfig* fallback = nullptr;
  for (const auto& c : baked) {
    if (is_default(c))
      fallback = &c;
    else
      devices.push_back(&c);
  }
  if (devices.empty())
    return class_dispatch(s, "dispatch", fallback, "The tuned configuration (no device-specific config)", sig);

  std::string out;
  for (size_t i = 0; i < devices.size(); ++i)
    out += class_dispatch(s, fmt::format("dispatch_device_{}", i), devices[i],
                          fmt::format("The tuned configuration for {}", devices[i]->entry), sig) + "\n";
  out += class_dispatch(s, "dispatch_default", fallback, "Any other device", sig) + "\n";
  out += device_lookup(n, devices) + "\n";
  std::string cases;
  for (size_t i = 0; i < devices.size(); ++i)
    cases += fmt::format("    case {0}: return dispatch_device_{0}<DType{1}>(device, {2});  // {3}\n", i, sig.flag_targs,
                         sig.args, devices[i]->entry);
  out += fmt::format(
      "// One config per device, chosen by the name of the tensors' device.\n"
      "template <typename DType{0}>\n"
      "void dispatch(DLDevice device, {1}) {{\n"
      "  switch (config_for_device(device.device_id)) {{\n{2}"
      "    default: return dispatch_default<DType{3}>(device, {4});\n"
      "  }}\n}}\n",
      sig.flag_tparams, sig.params, cases, sig.flag_targs, sig.args);
  return out;
}

std::vector<std::string> baked_config_lines(const std::vector<task::DeviceConfig>& baked) {
  std::vector<std::string> out;
  for (const auto& c : baked)
    if (!is_default(c)) out.push_back(fmt::format("{}: {} ({})", c.entry, c.file.string(), quoted_source(c)));
  const auto fallback = std::find_if(baked.begin(), baked.end(), is_default);
  const std::string who = out.empty() ? "every device" : "any other device";
  out.push_back(fallback == baked.end() ? who + ": no default.json, the first allowed values"
                                        : fmt::format("{}: {} ({})", who, fallback->file.string(), quoted_source(*fallback)));
  return out;
}

}  // namespace ako::port

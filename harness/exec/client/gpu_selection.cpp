#include "exec/client/gpu_selection.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::exec {

namespace {

int parse_index(const std::string& word, const std::string& spec) {
  size_t used = 0;
  int v = -1;
  try {
    v = std::stoi(word, &used);
  } catch (const std::exception&) {
  }
  if (word.empty() || used != word.size() || v < 0)
    throw Error(fmt::format("--gpus {}: expected all, a number of GPUs, or device indices like 0,2,5", spec));
  return v;
}

// The device indices of an "I,J,..." spec, in order ("I,": one); throws on a bad or repeated one.
std::vector<int> parse_indices(const std::string& spec) {
  std::vector<int> out;
  std::set<int> seen;
  for (size_t begin = 0; begin <= spec.size();) {
    const size_t comma = std::min(spec.find(',', begin), spec.size());
    const std::string word = spec.substr(begin, comma - begin);
    begin = comma + 1;
    if (word.empty() && comma == spec.size()) break;  // "3,": one device by index
    const int i = parse_index(word, spec);
    if (!seen.insert(i).second) throw Error(fmt::format("--gpus {}: GPU {} is named twice", spec, i));
    out.push_back(i);
  }
  return out;
}

}  // namespace

void check_gpus_spec(const std::string& spec) {
  if (spec.empty() || spec == "all") return;
  if (spec.find(',') == std::string::npos) {
    if (parse_index(spec, spec) < 1) throw Error(fmt::format("--gpus {}: at least one GPU", spec));
  } else {
    parse_indices(spec);
  }
}

std::vector<GpuDevice> select_gpus(const GpuProbe& probe, const std::string& spec) {
  check_gpus_spec(spec);
  const auto& all = probe.devices;
  if (all.empty()) throw Error("--gpus: no GPU is visible");
  std::vector<GpuDevice> out;
  if (spec.empty()) {
    out.push_back(all.front());
  } else if (spec == "all") {
    out = all;
  } else if (spec.find(',') == std::string::npos) {
    const int n = parse_index(spec, spec);
    if (n < 1 || n > static_cast<int>(all.size()))
      throw Error(fmt::format("--gpus {}: this host has {} visible GPU(s)", spec, all.size()));
    out.assign(all.begin(), all.begin() + n);
  } else {
    for (const int i : parse_indices(spec)) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const GpuDevice& d) { return d.ordinal == i; });
      if (it == all.end()) throw Error(fmt::format("--gpus {}: no visible GPU {} (this host has {})", spec, i, all.size()));
      out.push_back(*it);
    }
  }
  std::string models;
  for (const auto& d : out) models += fmt::format("{}{}: {}", models.empty() ? "" : ", ", d.ordinal, d.name);
  for (const auto& d : out)
    if (d.name != out.front().name)
      throw Error(fmt::format("--gpus {}: the selected GPUs are of different models ({}); ako never ranks times of "
                              "different models together: select GPUs of one model (e.g. by index, --gpus I,J) and "
                              "tune each model in its own run",
                              spec.empty() ? "(default)" : spec, models));
  if (out.size() > 1)
    for (const auto& d : out)
      if (d.uuid.empty())
        throw Error(fmt::format("--gpus {}: the driver gives no UUID for GPU {} ({}); ako pins each worker to its "
                                "GPU by UUID and tags records with it",
                                spec, d.ordinal, d.name));
  return out;
}

}  // namespace ako::exec

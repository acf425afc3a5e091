#include "port/pr_artifact.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "port/render_dispatch.hpp"

namespace ako::port {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<json> read_json(const fs::path& f, std::vector<std::string>& missing, const std::string& what) {
  if (!fs::exists(f)) {
    missing.push_back(what + ": " + f.string() + " does not exist");
    return std::nullopt;
  }
  try {
    return json::parse(read_file(f));
  } catch (const std::exception& e) {
    missing.push_back(what + ": " + f.string() + " is not valid JSON (" + e.what() + ")");
    return std::nullopt;
  }
}

std::string num(const json& v, const char* fmt_spec = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(fmt_spec), v.get<double>()) : "-";
}

// A timing's centre: its IQM, or its median in a result written before the IQM.
json centre_us(const json& timing) {
  if (!timing.is_object()) return json();
  const auto iqm = timing.find("iqm_us");
  return iqm != timing.end() && !iqm->is_null() ? *iqm : timing.value("median_us", json());
}

// An iteration's summed solution time: "runtime_us", or "median_us" in a trajectory written before the IQM.
json runtime_us(const json& iteration) {
  return iteration.contains("runtime_us") ? iteration["runtime_us"] : iteration.value("median_us", json());
}

std::string bench_table(const json& result) {
  std::string t = "| shape | dtype | flags | reference (µs) | solution (µs) | speedup | GB/s | % copy BW | verdict |\n"
                  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  const json cases = result.value("cases", json::array());
  for (const auto& c : cases) {
    if (c.value("kind", "") != "compare") continue;
    std::string flags;
    const json case_flags = c.value("flags", json::object());  // a local: items() must not outlive it
    for (const auto& [k, v] : case_flags.items()) flags += (v.is_boolean() && v.get<bool>() ? "" : "no") + k + " ";
    const json ref = c.value("reference_time", json()), sol = c.value("solution_time", json());
    t += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.value("shape", "?"), c.value("dtype", "?"), flags,
                     num(centre_us(ref)), num(centre_us(sol)),
                     num(c.value("speedup", json()), "{:.2f}x"), num(c.value("gbps", json()), "{:.0f}"),
                     num(c.value("pct_copy_bw", json()), "{:.1f}"), c.value("verdict", "?"));
  }
  const json s = result.value("summary", json::object());
  t += fmt::format("\nSummary: {} of {} cases correct; speedup {} (geomean {}). Device: {}.\n", s.value("correct", 0),
                   s.value("cases", 0), num(s.value("speedup", json()), "{:.3f}x"), num(s.value("geomean_speedup", json()), "{:.3f}x"),
                   result.value("device", json::object()).value("name", "unknown"));
  return t;
}

std::string ncu_table(const json* before, const json* after) {
  static const char* keys[] = {"dram_throughput_pct", "achieved_occupancy", "registers_per_thread", "local_spills",
                               "dominant_stall"};
  std::string t = "| metric | before (baseline) | after (best) |\n| --- | ---: | ---: |\n";
  auto cell = [](const json* j, const char* k) -> std::string {
    if (!j || !j->contains(k)) return "-";
    const json& v = (*j)[k];
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  for (const char* k : keys) t += fmt::format("| {} | {} | {} |\n", k, cell(before, k), cell(after, k));
  return t;
}

// The baked configs: which devices get which file, then each file's classes.
std::string tuned_configuration(const std::vector<task::DeviceConfig>& baked) {
  const bool by_device = std::any_of(baked.begin(), baked.end(), [](const auto& c) { return c.entry != "default"; });
  std::string md = "## Tuned configuration\n\n";
  md += by_device ? "One config per device, baked in and chosen at run time by the CUDA device name of the tensors' "
                    "device (spaces as `_`, as SGLang and vLLM name per-device config files); within a config, the "
                    "first class whose condition holds wins:\n\n"
                  : "Baked in as a compile-time dispatch (no device-specific config); the first class whose condition "
                    "holds wins:\n\n";
  for (const auto& line : baked_config_lines(baked)) md += "- " + line + "\n";
  for (const auto& c : baked) {
    md += fmt::format("\n### {} (`{}`)\n\n| class | when | params |\n| --- | --- | --- |\n",
                      c.entry == "default" ? std::string("default.json") : c.entry, c.file.string());
    for (const auto& cls : c.classes) {
      std::string p;
      for (const auto& [k, v] : cls.params) p += (p.empty() ? "" : ", ") + k + "=" + std::to_string(v);
      md += fmt::format("| {} | `{}` | {} |\n", cls.name, cls.when.empty() ? "always" : cls.when, p);
    }
    if (c.classes.empty()) md += "| default | always | first allowed values |\n";
  }
  if (baked.empty()) md += "- no config file: every shape uses the first allowed values\n";
  return md + "\n";
}

}  // namespace

PrArtifact render_pr_artifact(const task::TaskSpec& spec, const PrInputs& in) {
  PrArtifact a;
  std::string& md = a.markdown;
  md = fmt::format("# {}: ako-tuned kernel\n\n", spec.name);
  md += "Ported by `ako port` (engine profile `" + in.engine_profile + "`, on engine commit " +
        in.engine_commit.substr(0, 12) + ").\n\n";
  if (!in.mirrored_from.empty()) md += "The engine's kernel it was measured against was mirrored from `" + in.mirrored_from + "`.\n\n";
  md += "Files:\n";
  for (const auto& f : in.files) md += "- `" + f + "`\n";
  std::string flags;
  for (const auto& f : in.jit_flags) flags += (flags.empty() ? "" : " ") + f;
  md += "\nThe engine's JIT compiles the kernel with `" + flags + "`.\n\n";
  md += tuned_configuration(in.baked);

  // Sources: the trajectory's summary, its best iteration's result and ncu files, or --result.
  const fs::path traj = in.workspace / "trajectory" / spec.name;
  std::optional<json> summary, result, ncu_before, ncu_after;
  std::string result_from;
  if (!in.result_file.empty()) {
    result = read_json(in.result_file, a.missing, "benchmark result (--result)");
    result_from = in.result_file.string();
  }
  if (fs::exists(traj / "summary.json")) {
    summary = read_json(traj / "summary.json", a.missing, "iteration summary");
  } else {
    a.missing.push_back("iteration summary: " + (traj / "summary.json").string() + " does not exist (no `ako iterate` run)");
  }
  if (summary) {
    const int best = summary->value("best", -1), base = summary->value("baseline", 0);
    if (!result && best >= 0) {
      const fs::path f = traj / fmt::format("iter-{}", best) / "result.json";
      result = read_json(f, a.missing, "best iteration's result");
      result_from = f.string();
    }
    if (fs::exists(traj / fmt::format("iter-{}", base) / "ncu.json"))
      ncu_before = read_json(traj / fmt::format("iter-{}", base) / "ncu.json", a.missing, "ncu of the baseline");
    else
      a.missing.push_back(fmt::format("ncu before: no iter-{}/ncu.json in {} (profile the baseline with `ako iterate --ncu`)", base, traj.string()));
    if (fs::exists(traj / fmt::format("iter-{}", best) / "ncu.json"))
      ncu_after = read_json(traj / fmt::format("iter-{}", best) / "ncu.json", a.missing, "ncu of the best iteration");
    else
      a.missing.push_back(fmt::format("ncu after: no iter-{}/ncu.json in {}", best, traj.string()));
  } else {
    a.missing.push_back("ncu before/after: needs the trajectory of `ako iterate --ncu`");
  }
  if (!result && in.result_file.empty() && !summary)
    a.missing.push_back("micro-benchmark table: no trajectory and no --result FILE (an `ako run task " + spec.name + " --json FILE` output)");

  md += "\n## Micro-benchmark: reference vs solution\n\n";
  if (result) md += "From `" + result_from + "` (schema " + result->value("schema", "?") + ").\n\n" + bench_table(*result);
  else md += "Not available (see below).\n";
  md += "\n## ncu, hottest shape: before / after\n\n";
  if (ncu_before || ncu_after) md += ncu_table(ncu_before ? &*ncu_before : nullptr, ncu_after ? &*ncu_after : nullptr);
  else md += "Not available (see below).\n";
  md += "\n## Iterations\n\n";
  if (summary) {
    md += "| iter | title | status | speedup vs baseline | runtime (µs) | commit |\n| ---: | --- | --- | ---: | ---: | --- |\n";
    const json iterations = summary->value("iterations", json::array());
    for (const auto& it : iterations)
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", it.value("iter", -1), it.value("title", ""), it.value("status", ""),
                        num(it.value("speedup_vs_baseline", json()), "{:.3f}x"), num(runtime_us(it)),
                        it.value("commit", "").substr(0, 10));
    md += fmt::format("\nBest: iteration {} (baseline {}).\n", summary->value("best", -1), summary->value("baseline", 0));
  } else {
    md += "Not available (see below).\n";
  }
  if (!a.missing.empty()) {
    md += "\n## Missing from this artifact\n\n";
    for (const auto& m : a.missing) md += "- " + m + "\n";
  }
  return a;
}

}  // namespace ako::port

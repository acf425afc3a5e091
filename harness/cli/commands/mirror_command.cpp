#include "cli/commands/mirror_command.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "pipeline/workspace.hpp"
#include "port/mirror.hpp"

namespace ako::cli {

int mirror_command(const MirrorCommandOptions& opt) {
  port::MirrorOptions m;
  m.workspace = pipeline::find_workspace(opt.root);
  m.engine = opt.from;
  m.task = opt.task;
  m.profile = opt.profile;
  m.path = opt.path;
  m.arch = opt.arch;
  m.compile_check = !opt.no_compile;
  const port::MirrorResult r = port::mirror_kernel(m);
  const auto& p = r.provenance;

  fmt::print("ako mirror: {} @ {} (profile {}) -> task {}\n", p.mirrored.path, p.mirrored.commit.substr(0, 12),
             r.profile.name, p.task);
  fmt::print("  sha256 {}\n", p.mirrored.sha256);
  for (const auto& w : r.written) fmt::print("  wrote {}\n", w);
  if (r.python_kernel) {
    fmt::print("  a Python kernel (Triton / CuTe DSL): recorded for port's drift check only; no device part, no host glue,\n"
               "  nothing for NVRTC (time it from Python: bench/peers/{}.py)\n", p.task);
    return kExitOk;
  }
  if (r.split.host_glue.empty()) {
    fmt::print("  host glue: none found (no declaration names {})\n", fmt::join(r.profile.host_markers, ", "));
  } else {
    fmt::print("  host glue (ako port regenerates it):\n");
    for (const auto& g : r.split.host_glue)
      fmt::print("    {} {} (lines {}-{}){}\n", g.kind, g.name, g.first_line, g.last_line, g.entry.empty() ? "" : ": " + g.entry);
  }
  std::vector<std::string> dropped;
  for (const auto& i : r.split.includes)
    if (i.host_only) dropped.push_back(i.target);
  if (!dropped.empty()) fmt::print("  host-side headers dropped from the device part: {}\n", fmt::join(dropped, ", "));
  fmt::print("  engine headers the device part compiles against ({}, hashed for drift):\n", r.profile.layout.include_root);
  for (const auto& h : p.engine_headers) fmt::print("    {} {}\n", h.sha256.substr(0, 12), h.path);
  if (p.engine_headers.empty()) fmt::print("    none\n");
  if (!r.compile_checked) {
    fmt::print("NVRTC: not checked (--no-compile)\n");
    return kExitOk;
  }
  if (r.compiled) {
    fmt::print("NVRTC: the device part compiles for {} ({})\n", opt.arch, fmt::join(p.nvrtc_options, " "));
    return kExitOk;
  }
  fmt::print("NVRTC: the device part does not compile for {} ({}):\n{}\n", opt.arch, fmt::join(p.nvrtc_options, " "),
             r.compile_log);
  fmt::print("fix: a host-side header NVRTC cannot parse needs a stand-in in one of the profile's overlays ({}), a\n"
             "host-only include belongs in mirror.host_includes, or the device code needs what NVRTC lacks: hand-port it\n"
             "into {}. The provenance is recorded either way.\n",
             fmt::join(r.profile.nvrtc_overlays, ", "), p.device_copy);
  return kExitIncorrect;
}

}  // namespace ako::cli

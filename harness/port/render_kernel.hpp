#pragma once
// The engine kernel file `ako port` writes: the solution's device code, verbatim inside a
// namespace of its own, then host glue in the engine's conventions (for SGLang: a
// `Ako<Op>Kernel<flags..., axes..., DType>::run(tvm::ffi::TensorView...)` struct that checks every
// tensor with TensorMatcher and launches with LaunchKernel; port/render_entry.hpp), with the tuned
// configuration baked in as a compile-time dispatch: one template instantiation per shape class of
// each baked config file, picked at run time by the device's name (port/render_dispatch.hpp) and
// then by the class's `when` in the config's order, exactly as `ako run` picks them. How buffers
// (in place, integer, per-buffer dtypes, broadcast extents, views) and typed axes are bound:
// port/binding.hpp.
#include <string>

#include "port/engine_profile.hpp"
#include "port/port_names.hpp"
#include "task/spec.hpp"

namespace ako::port {

struct RenderedKernel {
  std::string file_text;       // the whole engine file
  std::string device_section;  // includes + the device namespace: compiles with NVRTC alone
  std::string device_block;    // the namespace block, as it appears in file_text
};

// `solution_text`: the solution .cuh; `origin`: one line saying where it came from (commit)
// for the header comment; `baked`: the config files to bake in (configs_to_bake), named in the
// header too. Throws ako::Error, naming the buffer, dim or placeholder, for a spec port cannot
// express (a kernel specialised on a dim or on {dtype}, a dim no tensor argument tells, a
// presence that depends on a dim).
RenderedKernel render_kernel(const task::TaskSpec& spec, const std::string& solution_text, const EngineProfile& profile,
                             const PortNames& names, const std::string& origin,
                             const std::vector<task::DeviceConfig>& baked);

}  // namespace ako::port

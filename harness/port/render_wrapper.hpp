#pragma once
// The Python side of a new kernel in the engine's conventions (SGLang: a cache_once module
// loader over load_jit/make_cpp_args, a `can_use_*` guard that tries the build and says False
// instead of raising, and an entry point that returns False when the caller must fall back).
#include <string>

#include "port/engine_profile.hpp"
#include "port/port_names.hpp"
#include "task/spec.hpp"

namespace ako::port {

std::string render_wrapper(const task::TaskSpec& spec, const EngineProfile& profile, const PortNames& names);

}  // namespace ako::port

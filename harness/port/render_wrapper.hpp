#pragma once
// The Python side of a new kernel in the engine's conventions (SGLang: a cache_once module
// loader over load_jit/make_cpp_args, a `can_use_*` guard that tries the build and says False
// instead of raising, and an entry point that returns False when the caller must fall back).
// Typed axes are parameters of the loader and the guard (False for a value the task does not
// list; a string axis reaches make_cpp_args as its code, port/binding.hpp) and keywords of the
// entry; a tensor of a fixed or axis-chosen dtype that does not have it means the caller's path;
// a tensor given against its present_if raises ValueError; views passed as tensors keep their
// strides (the C++ checks them). Throws ako::Error, naming the buffer and the expression, for a
// present_if the wrapper cannot spell in Python (?:, dims, functions other than min and max).
#include <string>

#include "port/engine_profile.hpp"
#include "port/port_names.hpp"
#include "task/spec.hpp"

namespace ako::port {

std::string render_wrapper(const task::TaskSpec& spec, const EngineProfile& profile, const PortNames& names);

}  // namespace ako::port

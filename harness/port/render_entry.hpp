#pragma once
// The engine entry point of the ported kernel file (SGLang: `struct Ako<Op>Kernel<flags...,
// axes..., DType> { static void run(tvm::ffi::TensorView...) }`): checks every tensor argument
// (dims bound by TensorMatcher, dtype, device, layout, 16-byte alignment; extents written as
// expressions and a view's strides once the dims are known), then calls the host namespace's
// dispatch() with the dims, the pointers and the f32 scalars. port/binding.hpp says which
// buffers are tensors and how axes become template parameters.
#include <string>

#include "port/port_names.hpp"
#include "task/spec.hpp"

namespace ako::port {

std::string render_entry(const task::TaskSpec& spec, const PortNames& names);

}  // namespace ako::port

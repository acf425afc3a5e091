#pragma once
// How a task spec's kernel arguments and variant axes become the ported host glue's tensors
// and template parameters: read by render_kernel (C++), render_entry and render_wrapper
// (Python), so that the three agree.
//
// Tensors. Every buffer among the solution's args is a tensor argument of the entry point,
// checked against its declared shape, dtype and layout, except a view whose storage is also a
// kernel argument: that view is computed from the storage tensor (storage.data + offset), as
// ako passes it. A view whose storage is not a kernel argument is its own tensor (q inside the
// caller's qkv): any tensor with exactly the view's extents and strides (a non-contiguous one).
// Extents are a dim (bound from the tensor), an integer, or an expression checked once the dims
// are known (`layout == 'bc' ? 1 : L`: broadcast extents of 1 included).
//
// Axes. Flags are `bool k<Flag>` template parameters, as before; typed axes are `int64_t
// k<Axis>` template parameters after them: an integer axis takes its value, a string axis the
// code of its value (ako_str_<value>, one code per distinct string of the spec, the same in
// C++ and Python).
#include <string>
#include <vector>

#include "port/port_names.hpp"
#include "task/entry_view.hpp"
#include "task/spec.hpp"

namespace ako::port {

// Which tensors the entry point takes (task/entry_view.hpp: ako's class choice reads the same).
using task::entry_tensors;
using task::find_buffer;
using task::from_storage;
using task::presence_exprs;
using task::storage_of;
const task::ScalarSpec* find_scalar(const task::TaskSpec& spec, const std::string& name);
bool is_dim(const task::TaskSpec& spec, const std::string& name);
bool is_integer_literal(const std::string& expr);

// The C++ element type of a buffer (a view: its storage's): "DType" for "$dtype", the fixed
// type (float, int, long long), or for a dtype chosen by an axis the alias
// `<qualifier>elem_<buffer><DType, k<Axis>>` that axis_type_aliases() declares.
std::string element_type(const task::TaskSpec& spec, const task::BufferSpec& b, const std::string& qualifier = "");
// The `elem_<buffer>` alias templates for the buffers whose dtype an axis chooses ("" if none).
std::string axis_type_aliases(const task::TaskSpec& spec);

// Every distinct value of the string axes, in declaration order, then the spec's dtype names
// when a config class chooses by `dtype` (string_codes_cpp then declares ako_dtype_code<DType>):
// value i has code i.
std::vector<std::string> string_axis_values(const task::TaskSpec& spec);
// The constants ako_str_<value> = code ("" when the spec has no string axis).
std::string string_codes_cpp(const task::TaskSpec& spec);
int64_t string_code(const task::TaskSpec& spec, const std::string& value);

// Template parameters after DType / before it in the entry: ", bool kWeight, int64_t kLayout",
// their arguments ", kWeight, kLayout", and the flag_<f> / axis_<a> constants the launch and
// dispatch functions declare for expressions.
struct VariantParams {
  std::string tparams;
  std::string targs;
  std::string consts;
};
VariantParams variant_params(const task::TaskSpec& spec);

// The Python wrapper's table of an axis's values: "_AXIS_SCALE_LAYOUT" (a dict value -> code for
// a string axis, a tuple for an integer one).
std::string python_axis_table(const std::string& axis);
// make_cpp_args's arguments before the dtype, from the wrapper's parameters (a flag's or axis's
// name): "weight, _AXIS_LAYOUT[layout], head_dim, ".
std::string python_template_args(const task::TaskSpec& spec);

// When the tensor is passed: "" (always), else a constant expression over the template
// parameters (a view: its own present_if and its storage's). `qualifier` as for element_type.
std::string presence_cpp(const task::TaskSpec& spec, const task::BufferSpec& b, const std::string& qualifier);

// A dim that no always-present tensor argument has as a plain extent (scale_shift's F, an extent
// of scale only as `layout == 'bf1c' ? F : 1`) is learnt per variant, from the values of the
// flags and axes its candidate extents and their tensors' presence depend on:
//  - where a present tensor's extent is the dim itself, from that tensor's extent (the first in
//    argument order): the source;
//  - where no present tensor's extent depends on the dim at all, as 1: no tensor is shaped by it,
//    so the op cannot see it (the kernel still gets a value: the neutral one);
//  - where some extent depends on it but none is it (`3 * H * D` alone), it cannot be learnt:
//    an error, as when no variant shows it at all.
// "Is the dim" and "depends on it" are decided by evaluating the extent with two probe values of
// the dim (the other dims fixed at other probes): exact for the extents specs write (dims,
// constants, ?: over flags and axes).
struct DimSource {
  std::string condition;  // C++ over the entry's template parameters; "" when it always holds
  std::string buffer;     // "" where no tensor is shaped by the dim: it is passed as 1
  size_t index = 0;       // the extent of `buffer` that is the dim
  size_t rank = 0;        // `buffer`'s number of extents
  std::string extent;     // that extent as the spec writes it
};
struct ConditionalDim {
  std::string dim;
  std::vector<DimSource> sources;  // first whose condition holds wins; the last has none
};
// `qualifier` prefixes the string codes in the conditions ("<host_ns>::" in the entry struct).
std::vector<ConditionalDim> conditional_dims(const task::TaskSpec& spec, const std::string& qualifier);

// Throws ako::Error, naming the buffer or dim and the expression, for what the port cannot bind:
// a present_if over dims, a dim that no variant lets the ported code learn (above).
void check_bindable(const task::TaskSpec& spec);

}  // namespace ako::port

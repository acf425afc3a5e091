#pragma once
// A case's dims as the engine's entry point sees them. The ported op learns each dim from the
// tensors it is given (port/binding.hpp); a dim that no tensor passed in this case is shaped by
// (Wan's frame count F where neither gate nor scale is per frame) cannot be seen there: the port
// passes it as 1. A config class's `when` is evaluated on this view, in ako as in the port, so
// that the kernel ako times for a case is the one the port runs for it.
#include <string>
#include <vector>

#include "task/expr.hpp"
#include "task/spec.hpp"

namespace ako::task {

const BufferSpec* find_buffer(const TaskSpec& spec, const std::string& name);
// The buffer a view is a window into; the buffer itself when it is not a view.
const BufferSpec& storage_of(const TaskSpec& spec, const BufferSpec& b);
// A view computed from its storage tensor (also a kernel argument) rather than passed itself.
bool from_storage(const TaskSpec& spec, const BufferSpec& b);
// The tensors the entry point takes: the solution's buffer args but for views from storage.
std::vector<const BufferSpec*> entry_tensors(const TaskSpec& spec);
// What decides whether a tensor is passed: its present_if and, for a view, its storage's.
std::vector<std::string> presence_exprs(const TaskSpec& spec, const BufferSpec& b);
// Whether the tensor is passed in this case (`env`: its dims, flags and axes): every presence_exprs holds.
bool present(const TaskSpec& spec, const BufferSpec& b, const ExprEnv& env);

// The dims of `env` (a case: dims, flags, axes) that the entry point cannot see: some entry
// tensor's extent names the dim in the spec, but no tensor present in this case has an extent
// that depends on its value. A dim no extent names at all is left alone (the port refuses it).
std::vector<std::string> unseen_dims(const TaskSpec& spec, const ExprEnv& env);

// `env` with its unseen dims set to 1, as the port passes them.
ExprEnv as_entry_sees(const TaskSpec& spec, ExprEnv env);

}  // namespace ako::task

#pragma once
// The names one port uses, derived once from the task and the profile so that the kernel file,
// the Python wrapper and the PR artifact agree.
#include <string>
#include <vector>

#include "port/engine_profile.hpp"
#include "task/spec.hpp"

namespace ako::port {

struct PortNames {
  std::string op;              // "rmsnorm"
  std::string kernel_path;     // engine-relative target .cuh
  std::string cuda_file;       // kernel_path relative to the kernel root (what load_jit is given)
  std::string wrapper_path;    // engine-relative Python wrapper
  std::string host_struct;     // "AkoRmsnormKernel"
  std::string device_ns;       // "ako_port_rmsnorm": the solution's device code
  std::string host_ns;         // "ako_port_rmsnorm_host": launch and dispatch helpers
  std::string module_name;     // "ako_rmsnorm": load_jit's first argument and the export name
  std::string can_use;         // "can_use_ako_rmsnorm"
  std::string py_entry;        // "ako_rmsnorm"
};

// `kernel_path`: engine-relative target; empty: the task's port.kernel when it lies under the
// profile's kernel root, else the profile's default for the op.
PortNames port_names(const task::TaskSpec& spec, const EngineProfile& profile, const std::string& kernel_path);

// Template flag parameter for a task flag: "weight" -> "kWeight".
std::string flag_param(const std::string& flag);

}  // namespace ako::port

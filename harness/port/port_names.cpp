#include "port/port_names.hpp"

#include "common/error.hpp"

namespace ako::port {

std::string flag_param(const std::string& flag) { return "k" + expand_op("{Op}", flag); }

PortNames port_names(const task::TaskSpec& spec, const EngineProfile& profile, const std::string& kernel_path) {
  PortNames n;
  n.op = spec.port.is_object() ? spec.port.value("op", spec.name) : spec.name;
  const std::string root = profile.layout.kernel_root + "/";
  std::string target = kernel_path;
  if (target.empty() && spec.port.is_object()) {
    const std::string from_task = spec.port.value("kernel", "");
    if (from_task.rfind(root, 0) == 0) target = from_task;
  }
  if (target.empty()) target = default_kernel_path(profile, n.op);
  if (target.rfind(root, 0) != 0)
    throw Error("port target " + target + " is not under the engine profile's kernel root " + profile.layout.kernel_root +
                " (profile " + profile.name + "): load_jit could not find it; pass --kernel " + root + "<area>/" + n.op + ".cuh");
  n.kernel_path = target;
  n.cuda_file = target.substr(root.size());
  n.wrapper_path = default_wrapper_path(profile, n.op);
  n.host_struct = expand_op(profile.kernel_struct, n.op);
  n.device_ns = "ako_port_" + n.op;
  n.host_ns = "ako_port_" + n.op + "_host";
  n.module_name = "ako_" + n.op;
  n.can_use = "can_use_ako_" + n.op;
  n.py_entry = "ako_" + n.op;
  return n;
}

}  // namespace ako::port

#pragma once
// The tuned configurations baked into the ported host glue. Every config file of the solution
// the port is given (one per device, named as SGLang and vLLM name theirs, plus default.json)
// becomes a dispatch over its classes, first match wins, exactly as `ako run` picks them. With
// device configs, `dispatch()` chooses among them at run time by the CUDA device name of the
// tensors' device (cudaGetDeviceProperties, asked once per device, spaces compared as `_` as
// the file names spell them); any other device takes default.json's. With default.json alone,
// `dispatch()` is its class dispatch and asks nothing.
#include <string>
#include <vector>

#include "port/port_names.hpp"
#include "task/spec.hpp"

namespace ako::port {

// What the dispatch functions take and pass on to launch<>() (built by render_kernel).
struct DispatchSignature {
  std::string flag_tparams;  // ", bool kWeight"
  std::string flag_targs;    // ", kWeight"
  std::string params;        // "int64_t dim_rows, int64_t dim_cols, float* out, ..., float eps"
  std::string args;          // "dim_rows, dim_cols, out, ..., eps"
  std::string flag_consts;   // the flag_<f> constants the class conditions use
};

// Which configs a port bakes: every device file of spec.configs (or only those named in
// `devices`; a name with no file is an ako::Error listing the files) and default.json.
std::vector<task::DeviceConfig> configs_to_bake(const task::TaskSpec& spec, const std::vector<std::string>& devices);

// The host code from the class dispatches to `dispatch()`, for the host namespace.
std::string render_dispatch(const task::TaskSpec& spec, const PortNames& names, const std::vector<task::DeviceConfig>& baked,
                            const DispatchSignature& sig);

// One line per baked config for headers and the PR artifact: "NVIDIA H200: <file> (<source>)",
// "any other device: <default file> (...)".
std::vector<std::string> baked_config_lines(const std::vector<task::DeviceConfig>& baked);

}  // namespace ako::port

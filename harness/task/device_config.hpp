#pragma once
// Per-device tuned configs. A solution's `config` names a folder holding one ako.config/1 file
// per device, named as vLLM and SGLang name their per-device kernel configs
// (`device_name=NVIDIA_H100_80GB_HBM3.json`: the CUDA device name with spaces as `_`), plus
// `default.json` for a device with no file of its own and for machines without a GPU. Every
// file is parsed and checked when the task loads (a stale config of another device is caught
// too); a command then installs the one for its device with use_device_config and prints its
// one-line message, so a config tuned on one GPU is never used on another without a word.
#include <optional>
#include <string>
#include <vector>

#include "result/run_result.hpp"
#include "task/spec.hpp"

namespace ako::task {

inline constexpr const char* kDefaultConfigFile = "default.json";
inline constexpr const char* kDefaultEntry = "default";  // the entry name of default.json

// How a command came to its device (ConfigUsed::device_source).
inline constexpr const char* kDeviceFromGpu = "gpu";                 // the GPU of this machine
inline constexpr const char* kDeviceFromOption = "--device";         // named on the command line
inline constexpr const char* kDeviceFromBaseline = "baseline entry";  // ako gate: a baseline entry's device
inline constexpr const char* kDeviceFromReplay = "replay";           // ako tune --replay: the recorded device
inline constexpr const char* kDeviceFromNone = "none";               // no GPU and no --device

// "NVIDIA H100 80GB HBM3" -> "device_name=NVIDIA_H100_80GB_HBM3.json". Also accepts the name
// already written with `_` or as the file name itself.
std::string device_config_file_name(const std::string& device);

// "device_name=NVIDIA_H100_80GB_HBM3.json" -> "NVIDIA H100 80GB HBM3"; nullopt for any other
// file name. (A device name's own `_` reads back as a space; matching goes by file name.)
std::optional<std::string> device_of_config_file(const std::string& file_name);

// Reads every config file of spec.solution.config into spec.configs and installs default.json.
// A file named neither default.json nor device_name=<name>.json is a SpecError (a leftover
// config.json would otherwise be ignored silently). Non-JSON files (notes) are ignored.
void load_device_configs(TaskSpec& spec);

// The device names that have a config file of their own, in file order.
std::vector<std::string> device_config_entries(const TaskSpec& spec);

// The DeviceConfig for `device` (or "default"), nullptr when there is none.
const DeviceConfig* find_device_config(const TaskSpec& spec, const std::string& device);

// Installs the config for `device` (empty: none; "default": default.json explicitly): the
// device's own file, else default.json (fallback), else none (first allowed values). `source`
// is one of the kDeviceFrom* names. Returns what was used and the one line to print, e.g.
//   "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json (tuned for NVIDIA H100 80GB HBM3: the GPU here)"
//   "no tuned config for NVIDIA H200 in solution/rmsnorm/configs/ (device files: NVIDIA H100 80GB HBM3); using default.json"
ConfigUsed use_device_config(TaskSpec& spec, const std::string& device, const std::string& source);

}  // namespace ako::task

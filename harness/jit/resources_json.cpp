#include "jit/resources_json.hpp"

namespace ako::jit {

nlohmann::json resources_json(const KernelResources& r) {
  return {{"registers", r.registers},       {"spill_stores", r.spill_stores},
          {"spill_loads", r.spill_loads},   {"stack_bytes", r.stack_bytes},
          {"shared_bytes", r.shared_bytes}, {"barriers", r.barriers},
          {"constant_bytes", r.constant_bytes}};
}

KernelResources resources_from(const nlohmann::json& j) {
  KernelResources r;
  r.registers = j.at("registers").get<int>();
  r.spill_stores = j.at("spill_stores").get<int>();
  r.spill_loads = j.at("spill_loads").get<int>();
  r.stack_bytes = j.at("stack_bytes").get<int>();
  r.shared_bytes = j.at("shared_bytes").get<int>();
  r.barriers = j.at("barriers").get<int>();
  r.constant_bytes = j.at("constant_bytes").get<int>();
  return r;
}

}  // namespace ako::jit

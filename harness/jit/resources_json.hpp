#pragma once
// KernelResources as the jit stage stores them (cache entries, compile children's reports):
// the jit keeps its own formats to itself.
#include <nlohmann/json.hpp>

#include "result/run_result.hpp"

namespace ako::jit {

nlohmann::json resources_json(const KernelResources& r);
KernelResources resources_from(const nlohmann::json& j);  // throws nlohmann::json::exception

}  // namespace ako::jit

#pragma once
// The key a baseline stores a case under: the same text as task::Case::label() ("flux1-single
// bf16 weight", "flux1-single bf16 noweight"), rebuilt from a recorded CaseResult so that the
// gate needs no task spec to read results.
#include <string>

#include "result/run_result.hpp"

namespace ako::gate {

inline std::string case_key(const CaseResult& c) {
  std::string key = c.shape + " " + c.dtype;
  for (const auto& [name, on] : c.flags) key += (on ? " " : " no") + name;  // std::map: name order, as Case::label
  for (const auto& [name, value] : c.axes) key += " " + name + "=" + value;
  return key;
}

}  // namespace ako::gate

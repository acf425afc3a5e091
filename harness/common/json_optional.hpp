#pragma once
// std::optional fields in ako's JSON files: written as null when absent, read back as nullopt
// when the key is missing or null (files written by older builds lack newer keys).
#include <optional>

#include <nlohmann/json.hpp>

namespace ako {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> read_opt(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

}  // namespace ako

#include "task/json_field.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::task {

void Field::fail(const std::string& expected) const {
  throw SpecError(*file_, path_.empty() ? "$" : path_, expected);
}

std::string Field::got() const {
  if (!value_) return "got nothing";
  const auto& v = *value_;
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "got null";
    case nlohmann::json::value_t::object: return "got an object";
    case nlohmann::json::value_t::array: return "got an array";
    case nlohmann::json::value_t::boolean: return fmt::format("got {}", v.get<bool>());
    default: return "got " + v.dump();
  }
}

Field Field::operator[](std::string_view key) const {
  require_object();
  std::string child = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  auto it = value_->find(key);
  return Field(it == value_->end() ? nullptr : &*it, std::move(child), file_);
}

Field Field::at(size_t index) const {
  require_array();
  std::string child = fmt::format("{}[{}]", path_, index);
  return Field(index < value_->size() ? &(*value_)[index] : nullptr, std::move(child), file_);
}

std::vector<Field> Field::elements() const {
  require_array();
  std::vector<Field> out;
  for (size_t i = 0; i < value_->size(); ++i) out.push_back(at(i));
  return out;
}

std::vector<std::pair<std::string, Field>> Field::members() const {
  require_object();
  std::vector<std::pair<std::string, Field>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) out.emplace_back(it.key(), (*this)[it.key()]);
  return out;
}

// Each accessor names the expected type; a missing required field says so first.
static std::string expectation(const Field& f, std::string_view type) {
  if (!f.present()) return fmt::format("required field is missing; expected {}", type);
  return fmt::format("expected {}, {}", type, f.got());
}

std::string Field::string() const {
  if (!present() || !value_->is_string()) fail(expectation(*this, "a string"));
  return value_->get<std::string>();
}

std::string Field::non_empty_string() const {
  std::string s = string();
  if (s.empty()) fail("expected a non-empty string, got \"\"");
  return s;
}

int64_t Field::integer() const {
  if (!present() || !value_->is_number_integer()) fail(expectation(*this, "an integer"));
  if (value_->is_number_unsigned() && value_->get<uint64_t>() > uint64_t(INT64_MAX))
    fail("expected an integer that fits in 64 bits, " + got());
  return value_->get<int64_t>();
}

double Field::number() const {
  if (!present() || !value_->is_number()) fail(expectation(*this, "a number"));
  return value_->get<double>();
}

bool Field::boolean() const {
  if (!present() || !value_->is_boolean()) fail(expectation(*this, "true or false"));
  return value_->get<bool>();
}

void Field::require_object() const {
  if (!present() || !value_->is_object()) fail(expectation(*this, "an object"));
}

void Field::require_array() const {
  if (!present() || !value_->is_array()) fail(expectation(*this, "an array"));
}

std::string Field::expression() const {
  if (present() && value_->is_number_integer()) return std::to_string(integer());
  if (!present() || !value_->is_string())
    fail(expectation(*this, "an integer expression (a string such as \"ceil_div(rows, 4)\" or an integer)"));
  std::string s = value_->get<std::string>();
  if (s.empty()) fail("expected an integer expression, got \"\"");
  return s;
}

void Field::only_keys(std::initializer_list<std::string_view> allowed) const {
  require_object();
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool known = false;
    for (auto a : allowed) known = known || a == it.key();
    if (known) continue;
    std::vector<std::string> names(allowed.begin(), allowed.end());
    (*this)[it.key()].fail("unknown field; expected one of " + join_names(names));
  }
}

std::string join_names(const std::vector<std::string>& names, std::string_view sep) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

}  // namespace ako::task

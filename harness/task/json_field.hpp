#pragma once
// A JSON value together with its path in the document ("buffers[1].present_if"), so that
// every check while parsing a spec or config can throw a SpecError naming the file, the field
// and what was expected. A Field may be absent (a missing key): the typed accessors then
// report "required field is missing".
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ako::task {

class Field {
 public:
  // `file` must outlive the Field and every Field derived from it.
  Field(const nlohmann::json* value, std::string path, const std::string* file)
      : value_(value), path_(std::move(path)), file_(file) {}

  bool present() const { return value_ != nullptr; }
  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }   // "" for the document itself
  const std::string& file() const { return *file_; }

  [[noreturn]] void fail(const std::string& expected) const;
  // "got \"bf8\"", "got 3", "got an array", ... for messages.
  std::string got() const;

  // Members and elements (the parent must be an object / array; absent children are allowed).
  Field operator[](std::string_view key) const;
  Field at(size_t index) const;
  std::vector<Field> elements() const;                            // requires an array
  std::vector<std::pair<std::string, Field>> members() const;     // requires an object

  // Typed values; each fails when absent or of another type.
  std::string string() const;
  std::string non_empty_string() const;
  int64_t integer() const;
  double number() const;
  bool boolean() const;
  void require_object() const;
  void require_array() const;
  // An integer expression may be written as a JSON string or a JSON integer.
  std::string expression() const;

  // Fails on the first member whose key is not in `allowed`.
  void only_keys(std::initializer_list<std::string_view> allowed) const;

 private:
  const nlohmann::json* value_;
  std::string path_;
  const std::string* file_;
};

// "a, b, c" for messages.
std::string join_names(const std::vector<std::string>& names, std::string_view sep = ", ");

}  // namespace ako::task

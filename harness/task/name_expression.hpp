#pragma once
// Kernel name templates: "rmsnorm_kernel<{T}, {weight}, {BLOCK}>" becomes the name expression
// NVRTC instantiates once every {placeholder} is replaced (see tasks/README.md for the names).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ako::task {

// The placeholder names a template uses, in order of appearance. Throws ako::Error on an
// unterminated '{', an empty "{}" or a '}' without its '{'.
std::vector<std::string> name_placeholders(std::string_view templ);

// Substitute every placeholder; throws ako::Error naming an unknown placeholder and the known ones.
std::string expand_name_expression(std::string_view templ, const std::map<std::string, std::string>& values);

}  // namespace ako::task

// include_directives(): the #include lines of a file as the preprocessor finds them. Where
// the language mode changes how a file is lexed (raw strings and digit separators since
// C++11/14, trigraphs before C++17), the file is lexed both ways and the directives of either
// are kept: a directive one of them would see is never missed (include_scan.hpp).
#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "jit/include_scan.hpp"

namespace ako::jit {

namespace {

struct LexMode {
  bool raw_strings, digit_separators, trigraphs;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

// Translation phases 1 and 2: trigraphs (when the mode has them) and line splices removed;
// line_of[i] is the physical line of text[i].
struct Spliced {
  std::string text;
  std::vector<int> line_of;
};

Spliced splice(const std::string& in, bool trigraphs) {
  Spliced out;
  out.text.reserve(in.size());
  out.line_of.reserve(in.size());
  int line = 1;
  for (size_t i = 0; i < in.size();) {
    char c = in[i];
    size_t width = 1;
    if (trigraphs && c == '?' && i + 2 < in.size() && in[i + 1] == '?') {
      if (in[i + 2] == '=') c = '#', width = 3;
      else if (in[i + 2] == '/') c = '\\', width = 3;
    }
    if (c == '\\') {
      size_t j = i + width;
      if (j < in.size() && in[j] == '\r') ++j;
      if (j < in.size() && in[j] == '\n') {  // a splice: the next line continues this one
        ++line;
        i = j + 1;
        continue;
      }
    }
    out.text += c;
    out.line_of.push_back(line);
    if (c == '\n') ++line;
    i += width;
  }
  return out;
}

class Lexer {
 public:
  Lexer(const Spliced& s, LexMode mode) : s_(s.text), line_of_(s.line_of), mode_(mode) {}

  std::vector<IncludeDirective> run() {
    bool logical_start = true, physical_start = true;  // only blanks and comments so far on the line
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        logical_start = physical_start = true;
        ++i_;
      } else if (blank(c)) {
        ++i_;
      } else if (c == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && peek(1) == '*') {
        // A comment is one blank; one that spans lines also starts a new physical line.
        if (skip_block_comment()) physical_start = true;
      } else if (c == '#' || (c == '%' && peek(1) == ':')) {
        const size_t hash = i_;
        i_ += c == '#' ? 1 : 2;
        if (logical_start || physical_start) directive(hash);
        logical_start = physical_start = false;
      } else {
        logical_start = physical_start = false;
        token();
      }
    }
    return std::move(found_);
  }

 private:
  char peek(size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  // From "/*": returns true when the comment held a newline.
  bool skip_block_comment() {
    const size_t end = s_.find("*/", i_ + 2);
    const size_t stop = end == std::string::npos ? s_.size() : end + 2;
    const bool newline = s_.find('\n', i_) < stop;
    i_ = stop;
    return newline;
  }

  // Blanks and comments (of any length: a comment is one blank even across lines).
  void skip_blanks() {
    while (i_ < s_.size()) {
      if (blank(s_[i_])) ++i_;
      else if (s_[i_] == '/' && peek(1) == '*') skip_block_comment();
      else break;
    }
  }

  void directive(size_t hash) {
    skip_blanks();
    const size_t start = i_;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    const std::string name = s_.substr(start, i_ - start);
    if (name != "include" && name != "include_next" && name != "import" && name != "embed") return;
    skip_blanks();
    IncludeDirective d;
    d.line = line_of_[hash];
    const char open = i_ < s_.size() ? s_[i_] : '\0';
    if (open == '"' || open == '<') {
      const char close = open == '"' ? '"' : '>';
      size_t end = i_ + 1;
      while (end < s_.size() && s_[end] != close && s_[end] != '\n') ++end;
      d.name = s_.substr(i_ + 1, end - i_ - 1);
      d.angle = open == '<';
      i_ = end < s_.size() && s_[end] == close ? end + 1 : end;
    } else {
      size_t end = s_.find('\n', i_);
      if (end == std::string::npos) end = s_.size();
      d.name = s_.substr(i_, end - i_);
      while (!d.name.empty() && blank(d.name.back())) d.name.pop_back();
      d.computed = true;
      // The rest of the line is lexed as usual (a comment may start there).
    }
    found_.push_back(std::move(d));
  }

  // A literal up to its closing quote, or to the end of its line (the preprocessor's end too).
  void quoted(char quote) {
    ++i_;
    while (i_ < s_.size() && s_[i_] != quote && s_[i_] != '\n') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ < s_.size() && s_[i_] == quote) ++i_;
  }

  // At the '"' of R"delim( ... )delim"; false (nothing consumed) when no valid delimiter follows.
  bool raw_string() {
    const size_t open = s_.find('(', i_ + 1);
    if (open == std::string::npos || open - i_ - 1 > 16) return false;
    const std::string delim = s_.substr(i_ + 1, open - i_ - 1);
    if (delim.find_first_of(" \t\n\\)\"") != std::string::npos) return false;
    const size_t end = s_.find(")" + delim + "\"", open + 1);
    i_ = end == std::string::npos ? s_.size() : end + delim.size() + 2;
    return true;
  }

  void number() {
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (ident_char(c) || c == '.') ++i_;
      else if ((c == '+' || c == '-') && std::string("eEpP").find(s_[i_ - 1]) != std::string::npos) ++i_;
      else if (c == '\'' && mode_.digit_separators && ident_char(peek(1))) ++i_;
      else break;
    }
  }

  void token() {
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      number();
    } else if (ident_char(c)) {
      const size_t start = i_;
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      const std::string word = s_.substr(start, i_ - start);
      const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
      if (i_ < s_.size() && s_[i_] == '"' && raw_prefix && mode_.raw_strings && raw_string()) return;
    } else if (c == '"' || c == '\'') {
      quoted(c);
    } else {
      ++i_;
    }
  }

  const std::string& s_;
  const std::vector<int>& line_of_;
  LexMode mode_;
  size_t i_ = 0;
  std::vector<IncludeDirective> found_;
};

}  // namespace

std::vector<IncludeDirective> include_directives(const std::string& text) {
  std::vector<IncludeDirective> all;
  std::set<std::tuple<int, std::string, bool, bool>> seen;
  for (const bool trigraphs : {false, true}) {
    const Spliced s = splice(text, trigraphs);
    for (const bool raw : {true, false})
      for (const bool separators : {true, false})
        for (auto& d : Lexer(s, {raw, separators, trigraphs}).run())
          if (seen.emplace(d.line, d.name, d.angle, d.computed).second) all.push_back(std::move(d));
  }
  std::stable_sort(all.begin(), all.end(), [](const IncludeDirective& a, const IncludeDirective& b) { return a.line < b.line; });
  return all;
}

}  // namespace ako::jit

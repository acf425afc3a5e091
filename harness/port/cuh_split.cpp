#include "port/cuh_split.hpp"

#include <algorithm>
#include <regex>

namespace ako::port {

namespace {

struct Item {
  size_t begin = 0, end = 0;  // [begin, end) in the text
  bool preprocessor = false;
};

int line_of(const std::string& t, size_t pos) {
  return 1 + static_cast<int>(std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(std::min(pos, t.size())), '\n'));
}

// Skips a comment or literal starting at i; returns the position after it, or i when none starts.
size_t skip_comment_or_literal(const std::string& t, size_t i) {
  const size_t n = t.size();
  if (t.compare(i, 2, "//") == 0) {
    const size_t e = t.find('\n', i);
    return e == std::string::npos ? n : e;
  }
  if (t.compare(i, 2, "/*") == 0) {
    const size_t e = t.find("*/", i + 2);
    return e == std::string::npos ? n : e + 2;
  }
  if (t[i] == 'R' && i + 1 < n && t[i + 1] == '"') {  // raw string R"delim( ... )delim"
    const size_t open = t.find('(', i + 2);
    if (open == std::string::npos) return n;
    const std::string close = ")" + t.substr(i + 2, open - i - 2) + "\"";
    const size_t e = t.find(close, open);
    return e == std::string::npos ? n : e + close.size();
  }
  if (t[i] == '"' || t[i] == '\'') {
    // A digit separator (1'000) is not a character literal.
    if (t[i] == '\'' && i > 0 && std::isalnum(static_cast<unsigned char>(t[i - 1]))) return i;
    const char q = t[i];
    size_t j = i + 1;
    while (j < n && t[j] != q && t[j] != '\n') j += t[j] == '\\' ? 2 : 1;
    return std::min(n, j + 1);
  }
  return i;
}

bool at_line_start(const std::string& t, size_t i) {
  while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) --i;
  return i == 0 || t[i - 1] == '\n';
}

size_t end_of_preprocessor_line(const std::string& t, size_t i) {
  while (i < t.size()) {
    const size_t e = t.find('\n', i);
    if (e == std::string::npos) return t.size();
    size_t k = e;
    while (k > i && (t[k - 1] == ' ' || t[k - 1] == '\t' || t[k - 1] == '\r')) --k;
    if (k > i && t[k - 1] == '\\') { i = e + 1; continue; }
    return e;
  }
  return t.size();
}

// The next significant character at or after i (skipping blanks and comments).
size_t next_significant(const std::string& t, size_t i) {
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) { ++i; continue; }
    if (t.compare(i, 2, "//") == 0 || t.compare(i, 2, "/*") == 0) { i = skip_comment_or_literal(t, i); continue; }
    break;
  }
  return i;
}

bool is_namespace_head(const std::string& head) {
  static const std::regex ns(R"(^\s*(inline\s+)?namespace(\s+[A-Za-z_][\w:]*)?\s*$|^\s*extern\s*"C(\+\+)?"\s*$)");
  return std::regex_match(head, ns);
}

// Namespace-level declarations and preprocessor lines, in order. Namespace braces open and
// close scopes but are not items themselves.
std::vector<Item> scan_items(const std::string& t) {
  std::vector<Item> items;
  std::vector<bool> scopes;  // true: namespace brace
  auto at_namespace_level = [&] { return std::all_of(scopes.begin(), scopes.end(), [](bool b) { return b; }); };
  size_t decl = std::string::npos;  // start of the declaration being read at namespace level
  int parens = 0;
  size_t i = 0;
  while (i < t.size()) {
    const size_t skipped = skip_comment_or_literal(t, i);
    if (skipped != i) { i = skipped; continue; }
    const char c = t[i];
    if (c == '#' && at_line_start(t, i)) {
      const size_t e = end_of_preprocessor_line(t, i);
      if (at_namespace_level() && decl == std::string::npos) items.push_back({i, e, true});
      i = e;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    const bool ns_level = at_namespace_level();
    if (ns_level && decl == std::string::npos) {
      if (c == '}') {  // closes a namespace
        if (!scopes.empty()) scopes.pop_back();
        ++i;
        continue;
      }
      if (c == ';') { ++i; continue; }  // stray ';' after a namespace
      decl = i, parens = 0;
    }
    if (c == '(') ++parens;
    else if (c == ')') --parens;
    else if (c == '{') {
      if (ns_level && parens == 0 && is_namespace_head(t.substr(decl, i - decl))) {
        scopes.push_back(true);
        decl = std::string::npos;
      } else {
        scopes.push_back(false);
      }
    } else if (c == '}') {
      if (!scopes.empty()) scopes.pop_back();
      if (at_namespace_level() && decl != std::string::npos && !ns_level) {
        const size_t nx = next_significant(t, i + 1);
        const size_t end = nx < t.size() && t[nx] == ';' ? nx + 1 : i + 1;
        items.push_back({decl, end, false});
        decl = std::string::npos;
        i = end;
        continue;
      }
    } else if (c == ';' && ns_level && parens == 0 && decl != std::string::npos) {
      items.push_back({decl, i + 1, false});
      decl = std::string::npos;
    }
    ++i;
  }
  return items;
}

bool contains_marker(const std::string& text, const std::vector<std::string>& markers) {
  return std::any_of(markers.begin(), markers.end(), [&](const std::string& m) { return text.find(m) != std::string::npos; });
}

HostGlue describe_host(const std::string& t, const Item& it) {
  HostGlue g;
  const std::string text = t.substr(it.begin, it.end - it.begin);
  g.first_line = line_of(t, it.begin);
  g.last_line = line_of(t, it.end - 1);
  std::smatch m;
  static const std::regex tmpl(R"(^\s*(template\s*<[^{;]*?>)\s*(struct|class|[A-Za-z_]))");
  if (std::regex_search(text, m, tmpl)) {
    g.template_header = m[1].str();
    g.template_header = std::regex_replace(g.template_header, std::regex(R"(\s+)"), " ");
  }
  const size_t body = text.find('{');
  const std::string head = text.substr(0, body);
  static const std::regex record(R"(\b(struct|class)\s+([A-Za-z_]\w*))");
  static const std::regex function(R"(([A-Za-z_]\w*)\s*\()");
  static const std::regex alias(R"(^\s*(template\s*<[^;]*?>\s*)?using\s+([A-Za-z_]\w*)\s*=)");
  if (std::regex_search(text, m, alias)) {
    g.kind = "alias";
    g.name = m[2].str();
  } else if (std::regex_search(head, m, record) && head.find('(') == std::string::npos) {
    g.kind = m[1].str();
    g.name = m[2].str();
    static const std::regex run(R"(static\s+[\w:<>\s]*?\brun\s*\([^)]*\))");
    std::smatch r;
    if (std::regex_search(text, r, run)) g.entry = std::regex_replace(r[0].str(), std::regex(R"(\s+)"), " ");
  } else if (std::regex_search(head, m, function)) {
    g.kind = "function";
    g.name = m[1].str();
    g.entry = std::regex_replace(head, std::regex(R"(\s+)"), " ");
    while (!g.entry.empty() && g.entry.back() == ' ') g.entry.pop_back();
  } else {
    g.kind = "declaration";
  }
  return g;
}

}  // namespace

SplitCuh split_cuh(const std::string& text, const std::vector<std::string>& host_markers,
                   const std::vector<std::string>& host_includes) {
  SplitCuh out;
  const std::vector<Item> items = scan_items(text);
  static const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  struct Cut {
    size_t begin, end;
    std::string replacement;
  };
  std::vector<Cut> cuts;
  auto cut_host = [&](const Item& it) {
    HostGlue g = describe_host(text, it);
    cuts.push_back({it.begin, it.end,
                    "// [ako mirror] host glue removed: " + g.kind + " " + g.name + " (engine lines " +
                        std::to_string(g.first_line) + "-" + std::to_string(g.last_line) +
                        "); ako port regenerates it"});
    out.host_glue.push_back(std::move(g));
  };
  for (const Item& it : items) {
    const std::string s = text.substr(it.begin, it.end - it.begin);
    if (it.preprocessor) {
      std::smatch m;
      if (!std::regex_search(s, m, include)) continue;
      IncludeLine inc{m[1].str(), false, line_of(text, it.begin)};
      inc.host_only = std::any_of(host_includes.begin(), host_includes.end(),
                                  [&](const std::string& p) { return inc.target.rfind(p, 0) == 0; });
      out.includes.push_back(inc);
      if (inc.host_only)
        cuts.push_back({it.begin, it.end, "// [ako mirror] host-side header <" + inc.target + "> dropped (host glue only)"});
      continue;
    }
    if (!contains_marker(s, host_markers)) continue;
    cut_host(it);
  }
  // A declaration that names removed host glue is host glue too (SGLang's `using QKNormKernel =
  // std::conditional_t<..., QKNormKernelCTA<...>, QKNormKernelWarp<...>>` picks between two host
  // structs), until nothing more names what was removed.
  for (bool more = true; more;) {
    more = false;
    for (const Item& it : items) {
      if (it.preprocessor || std::any_of(cuts.begin(), cuts.end(), [&](const Cut& c) { return c.begin == it.begin; }))
        continue;
      const std::string s = text.substr(it.begin, it.end - it.begin);
      const bool names_removed = std::any_of(out.host_glue.begin(), out.host_glue.end(), [&](const HostGlue& g) {
        return !g.name.empty() && std::regex_search(s, std::regex("\\b" + g.name + "\\b"));
      });
      if (!names_removed) continue;
      cut_host(it);
      more = true;
    }
  }
  std::sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.begin < b.begin; });
  std::sort(out.host_glue.begin(), out.host_glue.end(),
            [](const HostGlue& a, const HostGlue& b) { return a.first_line < b.first_line; });
  std::string dev;
  size_t at = 0;
  for (const Cut& c : cuts) {
    dev.append(text, at, c.begin - at);
    dev += c.replacement;
    at = c.end;
  }
  dev.append(text, at, std::string::npos);
  if (dev.find("#pragma once") == std::string::npos) dev = "#pragma once\n" + dev;
  out.device_text = std::move(dev);
  return out;
}

}  // namespace ako::port

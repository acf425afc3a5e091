#pragma once
// Headless Chromium from Debian (`chromium-headless-shell`, else `chromium`; $AKO_CHROMIUM
// overrides) rendering a page once: the DOM it built (--dump-dom), a screenshot
// (--screenshot), and the page's console messages, which Chromium logs to stderr as
// "...:INFO:CONSOLE:<line>] "<message>", source: ..." with --enable-logging=stderr. The
// report has no script, so any console line at all is a failure; the render test checks this
// capture on a page that does log errors, so the check can fail.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "cpu/ako_cli_support.hpp"

namespace ako::report::testing {

inline std::optional<std::filesystem::path> find_chromium(std::string& searched) {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("AKO_CHROMIUM"); env && *env) {
    searched = std::string("$AKO_CHROMIUM=") + env;
    if (fs::exists(env)) return fs::path(env);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::vector<std::string> folders;
  for (std::string d; std::getline(dirs, d, ':');) folders.push_back(d);
  searched = "chromium-headless-shell, chromium on PATH";
  for (const char* name : {"chromium-headless-shell", "chromium"})
    for (const auto& d : folders)
      if (!d.empty() && fs::exists(fs::path(d) / name)) return fs::path(d) / name;
  return std::nullopt;
}

struct Rendered {
  int status = -1;
  std::string command, dom, log;
  std::vector<std::string> console;  // the page's console messages
  std::string png;                   // the screenshot's bytes (empty when none was written)
};

inline Rendered render_page(const std::filesystem::path& chromium, const std::filesystem::path& page,
                            const std::filesystem::path& work, int width, int height) {
  namespace fs = std::filesystem;
  Rendered r;
  const fs::path png = work / "shot.png", dom = work / "dom.html", log = work / "chromium.log";
  fs::remove(png);
  r.command = fmt::format(
      "(timeout 120 '{}' --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --mute-audio "
      "--user-data-dir='{}' --enable-logging=stderr --v=0 --dump-dom --screenshot='{}' --window-size={},{} 'file://{}' "
      "> '{}' 2> '{}')",
      chromium.string(), (work / "profile").string(), png.string(), width, height, fs::absolute(page).string(),
      dom.string(), log.string());
  r.status = testsupport::run_shell(r.command).status;
  if (fs::exists(dom)) r.dom = read_file(dom);
  if (fs::exists(log)) r.log = read_file(log);
  if (fs::exists(png)) r.png = read_file(png);
  std::stringstream lines(r.log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
  return r;
}

}  // namespace ako::report::testing

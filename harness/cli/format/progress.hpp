#pragma once
// One live progress line on stderr ("[12/40] flux1-single bf16 weight: timing solution"),
// redrawn in place on a terminal; silent when disabled so logs stay clean.
#include <cstdio>
#include <string>

#include "pipeline/progress.hpp"

namespace ako::cli {

class Progress final : public pipeline::ProgressSink {
 public:
  Progress(std::FILE* stream, bool enabled) : stream_(stream), enabled_(enabled) {}
  ~Progress() override { clear(); }
  void note(const std::string& text) override;
  void update(int done, int total, const std::string& label, const std::string& what) override;
  void clear() override;

 private:
  void draw(const std::string& line);
  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace ako::cli

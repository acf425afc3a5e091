#pragma once
// What the pipeline says while it works (compiling, which case, which phase), for whoever
// shows it: the commands draw it as one live line on stderr (cli/format/progress.hpp).
#include <string>

namespace ako::pipeline {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void note(const std::string& text) = 0;
  // `done` of `total` cases finished; `label` is the case now running, `what` its phase.
  virtual void update(int done, int total, const std::string& label, const std::string& what) = 0;
  // Before anything else is printed on the same stream.
  virtual void clear() = 0;
};

}  // namespace ako::pipeline

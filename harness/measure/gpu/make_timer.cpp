// Chooses the timer: CUPTI when asked for and available, CUDA events otherwise.
#include <exception>

#include "measure/gpu/cupti_timer.hpp"
#include "measure/gpu/event_timer.hpp"
#include "measure/gpu/timer.hpp"

namespace ako::measure {

std::unique_ptr<Timer> make_timer(const exec::TimingOptions& opt, size_t l2_bytes, std::string* note) {
  if (note) note->clear();
  if (!opt.use_cupti) {
    if (note) *note = "CUPTI disabled by the job (use_cupti = false), using CUDA events";
    return std::make_unique<EventTimer>(l2_bytes);
  }
  try {
    return std::make_unique<CuptiTimer>(l2_bytes);
  } catch (const std::exception& e) {
    if (note) *note = std::string("CUPTI unavailable, using CUDA events: ") + e.what();
    return std::make_unique<EventTimer>(l2_bytes);
  }
}

}  // namespace ako::measure

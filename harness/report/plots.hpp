#pragma once
// The report's figures, each one inline <svg> (svg.hpp): bars per case against the copy
// bandwidth, the iteration history, the tuning landscape. Every mark carries a <title> (hover).
#include <string>

#include "report/report_data.hpp"

namespace ako::report {

// The highest bar over every facet, rounded up, with room for the 100% line: one y scale for
// all facets so that they compare at a glance.
double bars_y_max(const CaseBars& bars);

// One facet (a dtype and variant): per shape a group of bars (reference, solution, baselines),
// the y axis in % of copy bandwidth with the 100% line (the roofline of a memory-bound kernel).
std::string facet_svg(const Facet& facet, const CaseBars& bars, double y_max);

// One hottest case across the iterations: the solution's IQM per iteration, each point
// marked by the iteration's status, the stall rule's firings and resets drawn as lines.
std::string history_case_svg(const History& h, const HottestCase& c);
// The task's total (sum of the solution's IQMs over the correct timed cases) per iteration.
std::string history_total_svg(const History& h);

// One parameter of one class: every variant's score against that parameter's value; the
// config's chosen point and the tuner's winner over the records ringed. Points slower than kOffScale x
// the fastest are drawn at the top edge (counted in the caption).
inline constexpr double kOffScale = 2.5;
std::string landscape_svg(const ClassLandscape& cls, const std::string& param);

}  // namespace ako::report

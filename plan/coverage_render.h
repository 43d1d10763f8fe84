// `rdmacheck plan` output: totals at the top, then per verb its promises tested,
// untestable on this device and untested, then per cited IBTA / RFC section how many
// tests cite it. Text for a terminal, Markdown for a page, JSON for tools.
#ifndef RDMACHECK_PLAN_COVERAGE_RENDER_H_
#define RDMACHECK_PLAN_COVERAGE_RENDER_H_

#include <string>

#include "nlohmann/json.hpp"
#include "plan/coverage.h"
#include "plan/providers.h"

namespace rdmacheck {

std::string CoverageTotalsLine(const Coverage& c);  // "170 verbs, 1234 promises: 80 tested, 0 untestable, 1154 untested"
std::string CoverageText(const Coverage& c);
std::string CoverageMarkdown(const Coverage& c);
nlohmann::json CoverageJson(const Coverage& c);

// The documented errors of the verbs one provider implements: a totals line, then what is
// untested and what the provider cannot return (with why). Printed above the per-verb list.
std::string ProviderErrorsText(const ProviderErrors& e);
std::string ProviderErrorsMarkdown(const ProviderErrors& e);
nlohmann::json ProviderErrorsJson(const ProviderErrors& e);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_COVERAGE_RENDER_H_

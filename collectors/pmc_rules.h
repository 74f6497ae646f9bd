/* pmc_rules.h - PTP's health rules, run by health_evaluate through the
 * registry (collector.h) when the part answered. */
#ifndef SYNCTOP_PMC_RULES_H
#define SYNCTOP_PMC_RULES_H

#include "health_rule.h"

void pmc_rules(const health_context *ctx, finding_list *out);

#endif

/* chrony_rules.h - chrony's health rules, run by health_evaluate through the
 * registry (collector.h) when the part answered. */
#ifndef SYNCTOP_CHRONY_RULES_H
#define SYNCTOP_CHRONY_RULES_H

#include "health_rule.h"

void chrony_rules(const health_context *ctx, finding_list *out);

#endif

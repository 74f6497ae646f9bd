/* pmc_instances_rules.h - PTP's rules on a node with several ptp4l
 * (pmc_instances.h): every instance judged by the same rules as a lone
 * ptp4l (pmc_rules.h), its findings naming the instance. */
#ifndef SYNCTOP_PMC_INSTANCES_RULES_H
#define SYNCTOP_PMC_INSTANCES_RULES_H

#include "health_rule.h"

/* The primary instance (observation.ptp), where it answered: pmc_rules,
 * with "ptp4l socket ...: " before each message when the node runs more
 * than one ptp4l. */
void pmc_instances_rules(const health_context *ctx, finding_list *out);

/* Whatever the primary's state: `ptp.config_unreadable` for each instance
 * whose config could not be read, and every other instance judged (its
 * rules when it answered, else why it did not). */
void pmc_instances_rules_others(const health_context *ctx, finding_list *out);

#endif

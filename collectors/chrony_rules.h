/* chrony_rules.h - chrony's health rules, run by health_evaluate through the
 * registry (collector.h) when the part answered. */
#ifndef SYNCTOP_CHRONY_RULES_H
#define SYNCTOP_CHRONY_RULES_H

#include "health_rule.h"

void chrony_rules(const health_context *ctx, finding_list *out);

/* chrony.drift and chrony.drift_daily alone: the frequency's trends in h
 * (the ring's chrony frequency, or a Prometheus server's slopes).  The
 * kernel's rules run them for a node whose only frequency is the kernel's
 * (node_exporter's timex, prometheus_drift.h). */
void chrony_drift_rules(const history *h, const thresholds *th, finding_list *out);

/* Whether chrony.drift fires for this slope (ppm per hour): exactly the
 * rule's test, rounding included, for a caller that must know whether a
 * new slope changes the finding (prometheus_drift_run.c). */
bool chrony_drift_hourly_exceeds(double slope_ppm_per_hour, const thresholds *th);

#endif

/* node_update.c - a finished poll enters the model: carry-over, history,
 * health (node_update.h). */
#include <config.h>

#include "node_update.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "health.h"

static void record_history(node *n)
{
	history_sample sample = {.t = n->obs.taken_at};
	for (int s = 0; s < HISTORY_SERIES_COUNT; s++) {
		sample.value[s] = NAN;
	}
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (collector_registry[i]->history) {
			collector_registry[i]->history(&n->obs, &sample);
		}
	}
	history_push(&n->history, &sample);
}

void node_update_observation(node *n, observation *fresh, const thresholds *th)
{
	fresh->clock = n->obs.clock; /* measured by its own exchanges, less often */
	if (n->has_observation) {
		for (size_t i = 0; i < collector_registry_count; i++) {
			if (collector_registry[i]->carry) {
				collector_registry[i]->carry(fresh, &n->obs);
			}
		}
		for (size_t i = 0; i < collector_registry_count; i++) {
			if (collector_registry[i]->compare) {
				collector_registry[i]->compare(fresh, &n->obs);
			}
		}
	}
	n->obs = *fresh;
	n->has_observation = true;
	n->reachable = true;
	n->error[0] = '\0';
	n->polls_completed++;
	record_history(n);
	health_apply(n, th);
}

void node_update_unreachable(node *n, const char *error, const thresholds *th)
{
	snprintf(n->error, sizeof n->error, "%s", error);
	n->reachable = false;
	health_apply(n, th);
}

void node_update_clock_check(node *n, const clock_check_obs *check, const thresholds *th)
{
	n->obs.clock = *check;
	health_apply(n, th);
}

const char *node_update_probe_iface(const node *n)
{
	if (!n->has_observation) {
		return NULL;
	}
	const ptp_obs *ptp = &n->obs.ptp;
	for (int i = 0; i < ptp_port_count(ptp); i++) {
		if (ptp->ports[i].interface[0]) {
			return ptp->ports[i].interface;
		}
	}
	return NULL;
}

bool node_update_nic_elsewhere(const node *n)
{
	const char *ptp_iface = node_update_probe_iface(n);
	return ptp_iface && n->obs.nic.state != OBS_NOT_COLLECTED &&
	       strncmp(ptp_iface, n->obs.nic.interface, sizeof n->obs.nic.interface) != 0;
}

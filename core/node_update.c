/* node_update.c - a finished poll enters the model: carry-over, history,
 * health, then change detection (node_update.h, event_log.h). */
#include <config.h>

#include "node_update.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "event_log.h"
#include "health.h"
#include "system_clock.h"
#include "walltime.h"

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
	/* a daemon found restarted (the daemons collector's carry): an event */
	for (int k = 0; k < DAEMON_KINDS; k++) {
		const daemon_proc *p = &fresh->daemons.procs[k];
		if (p->restarted_now) {
			node_log_event(n, fresh->taken_at, "%s restarted: PID %d (was %d), %lld s old",
				       daemon_name(1u << k), p->pid, p->previous_pid, (long long)p->age_s);
		}
	}
	n->obs = *fresh;
	if (!n->has_observation) {
		n->first_observed_at = fresh->taken_at;
	}
	n->has_observation = true;
	n->reachable = true;
	n->error[0] = '\0';
	n->polls_completed++;
	record_history(n);
	health_apply(n, th);
	if (n->watch) {
		event_log_watch(n->watch, n, n->obs.taken_at);
	}
}

void node_update_unreachable(node *n, const char *error, const thresholds *th)
{
	snprintf(n->error, sizeof n->error, "%s", error);
	n->reachable = false;
	health_apply(n, th);
	if (n->watch) {
		event_log_watch(n->watch, n, walltime_now());
	}
}

void node_update_clock_check(node *n, const clock_check_obs *check, const thresholds *th)
{
	n->obs.clock = *check;
	history_push_clock(&n->history, check->state == OBS_OK ? check->measured_at : NAN, check->offset_s);
	health_apply(n, th);
	if (n->watch) {
		event_log_watch(n->watch, n, walltime_now());
	}
}

/* The interfaces of ptp's ports not yet in names[0..count), up to NIC_MAX. */
static int add_port_ifaces(const ptp_obs *ptp, const char *names[NIC_MAX], int count)
{
	for (int i = 0; i < ptp_port_count(ptp) && count < NIC_MAX; i++) {
		const char *name = ptp->ports[i].interface;
		bool seen = name[0] == '\0';
		for (int k = 0; k < count && !seen; k++) {
			seen = strncmp(names[k], name, sizeof ptp->ports[i].interface) == 0;
		}
		if (!seen) {
			names[count++] = name;
		}
	}
	return count;
}

int node_update_probe_ifaces(const node *n, const char *names[NIC_MAX])
{
	if (!n->has_observation) {
		return 0;
	}
	/* the ports of the ptp4l the system clock is steered from first (phc_ctl
	 * reads the first interface's PHC: system_clock.h), then the primary
	 * ptp4l's, then every other instance's */
	const observation *o = &n->obs;
	int steer = sysclk_instance(o);
	int count = steer >= 0 ? add_port_ifaces(&o->ptp_instances[steer].ptp, names, 0) : 0;
	count = add_port_ifaces(&o->ptp, names, count);
	for (int k = 0; k < o->n_ptp_instances && k < PTP_MAX_INSTANCES; k++) {
		if (k != o->ptp_primary && k != steer) {
			count = add_port_ifaces(&o->ptp_instances[k].ptp, names, count);
		}
	}
	return count;
}

bool node_update_nic_elsewhere(const node *n)
{
	const char *names[NIC_MAX];
	int count = node_update_probe_ifaces(n, names);
	if (count == 0 || n->obs.nic.state == OBS_NOT_COLLECTED) {
		return false;
	}
	for (int i = 0; i < count; i++) {
		if (!observation_nic_for(&n->obs, names[i], sizeof n->obs.ptp.ports[0].interface)) {
			return true;
		}
	}
	return false;
}

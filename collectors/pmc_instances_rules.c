/* pmc_instances_rules.c - the PTP rules once per ptp4l instance.
 *
 * A second ptp4l is judged by pmc_rules on a copy of the observation whose
 * PTP part is that instance's, with what belongs to the primary instance
 * only taken out: the history (offsets and path delays of the primary) and
 * the NIC unless ethtool checked this instance's own interface.  The PHC
 * read stays: phc_ctl reads the PHC of the instance the system clock is
 * steered from (system_clock.h sysclk_instance), and the age of the last
 * Sync of a hardware-timestamping port uses it only when it is that port's
 * interface's (ptp_sync_last_age_s), so each instance's Sync age is judged
 * where its PHC was read or it timestamps in software.  The NIC rule
 * (health.c) covers every instance's ports itself. */
#include <config.h>

#include "pmc_instances_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmc_instances.h"
#include "pmc_rules.h"
#include "xalloc.h"

/* Adds every finding of from to out, each message led by the instance. */
static void add_named(const ptp_instance *inst, const finding_list *from, finding_list *out)
{
	char label[PTP_PATH_LEN + 32];
	pmc_instance_label(inst, label, sizeof label);
	for (int i = 0; i < from->count && i < MAX_FINDINGS; i++) {
		finding f = from->items[i];
		finding_message(&f, "ptp4l %s: %s", label, from->items[i].message);
		health_add_finding(out, &f);
	}
}

/* pmc_rules on the instance's own data sets. */
static void judge(const health_context *ctx, const ptp_instance *inst, finding_list *out)
{
	observation *o = xmalloc(sizeof *o);
	history *h = xmalloc(sizeof *h);
	*o = *ctx->obs;
	o->ptp = inst->ptp;
	o->n_ptp_instances = 0;
	const ptp_port *port = ptp_primary_port(&o->ptp);
	const nic_obs *nic = port ? observation_nic_for(ctx->obs, port->interface, sizeof port->interface) : NULL;
	if (nic) {
		o->nic = *nic;
	} else {
		nic_obs_init(&o->nic);
	}
	history_init(h);
	health_context c = {o, h, ctx->th};
	finding_list found = {0};
	pmc_rules(&c, &found);
	add_named(inst, &found, out);
	free(h);
	free(o);
}

void pmc_instances_rules(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	if (o->n_ptp_instances <= 1) {
		pmc_rules(ctx, out);
		return;
	}
	finding_list found = {0};
	pmc_rules(ctx, &found);
	add_named(&o->ptp_instances[o->ptp_primary], &found, out);
}

static void config_unreadable(const ptp_instance *inst, finding_list *out)
{
	char cfg[HEALTH_NAME_LEN], why[HEALTH_NAME_LEN];
	HEALTH_CLEAN(cfg, inst->config);
	HEALTH_CLEAN(why, inst->config_error);
	finding f;
	finding_start(&f, SEVERITY_WARN, "ptp.config_unreadable");
	finding_message(&f, "ptp4l runs with config %s, which cannot be read (%s): its socket, and so "
			"its state, are unknown", cfg, why);
	finding_hint(&f, "synctop reads uds_address from the file ptp4l was started with (-f), as the "
		     "polling user: make it readable (`chmod a+r %s`) or start ptp4l with "
		     "`--uds_address PATH` on its command line.", cfg);
	health_add_finding(out, &f);
}

/* A second instance that did not answer: as a lone ptp4l's failure is
 * said (health.c rule_collection), naming the socket. */
static void not_answered(const ptp_instance *inst, finding_list *out)
{
	char label[PTP_PATH_LEN + 32], why[OBS_ERROR_LEN];
	pmc_instance_label(inst, label, sizeof label);
	health_clean(why, sizeof why, inst->ptp.error, sizeof inst->ptp.error);
	finding f;
	if (inst->ptp.state == OBS_DAEMON_UNREACHABLE) {
		finding_start(&f, SEVERITY_CRIT, "collector.daemon_unreachable");
		finding_message(&f, "ptp4l on %s is running but does not answer pmc%s%s", label,
				why[0] ? ": " : "", why);
		finding_hint(&f, "`pmc -u -b 0 -s SOCKET 'GET PORT_DATA_SET'` on the node; "
			     "`journalctl -u ptp4l` for why it stopped answering.");
	} else {
		finding_start(&f, SEVERITY_WARN, "collector.tool_failed");
		finding_message(&f, "pmc failed on ptp4l %s (%s)%s%s", label, obs_state_name(inst->ptp.state),
				why[0] ? ": " : "", why);
		finding_hint(&f, "Run `pmc -u -b 0 -s SOCKET 'GET PORT_DATA_SET'` by hand on the node as "
			     "the polling user (or poll with `--sudo`).");
	}
	health_add_finding(out, &f);
}

void pmc_instances_rules_others(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	for (int i = 0; i < o->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		const ptp_instance *inst = &o->ptp_instances[i];
		if (inst->config_error[0]) {
			config_unreadable(inst, out);
		} else if (i == o->ptp_primary) {
			continue; /* pmc_instances_rules, or health.c when it failed */
		} else if (inst->ptp.state == OBS_OK) {
			judge(ctx, inst, out);
		} else if (!obs_state_absent(inst->ptp.state)) {
			not_answered(inst, out);
		}
	}
}

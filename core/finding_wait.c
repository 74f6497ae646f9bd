/* finding_wait.c - every finding code, how long each must last before the
 * live view raises a node for it, and carrying `since` from poll to poll. */
#include <config.h>

#include "finding_wait.h"

#include <string.h>

typedef struct {
	const char *code;
	double wait_s;
} code_entry;

/* 30 s: measured values that jitter around their limits (offsets, spreads,
 * drift, path delay) must hold for a while before they page anyone; the
 * rest are states that are real at once (no service, unsynchronised,
 * FAULTY, conflicting daemons, a host key...).  synctop choice; docs/checks.md
 * lists them. */
#define SETTLE_S 30.0

static const code_entry table[] = {
	{"time.no_service", 0},
	{"time.other_daemon", 0},
	{"timesyncd.unsynchronised", 0},
	{"timesyncd.offset", SETTLE_S},
	{"timesyncd.leap", 0},
	{"time.conflicting_daemons", 0},
	{"time.daemon_in_container", 0},
	{"collector.daemon_unreachable", 0},
	{"collector.tool_missing", 0},
	{"collector.tool_failed", 0},
	{"chrony.leap", 0},
	{"chrony.offset", SETTLE_S},
	{"chrony.error_bound", SETTLE_S},
	{"chrony.no_selected_source", 0},
	{"chrony.local_reference", 0},
	{"chrony.reach", 0},
	{"chrony.frequency", 0},
	{"chrony.skew", 0},
	{"chrony.falseticker", 0},
	{"chrony.drift", SETTLE_S},
	{"chrony.few_sources", 0},
	{"chrony.drift_daily", SETTLE_S},
	{"ntp.leap", 0},
	{"ntp.offset", SETTLE_S},
	{"ntp.no_system_peer", 0},
	{"ntp.reach", 0},
	{"ntp.frequency", 0},
	{"ptp.port_state", 0},
	{"ptp.gm_absent", 0},
	{"ptp.gm_clock_class", 0},
	{"ptp.gm_not_traceable", 0},
	{"ptp.offset", SETTLE_S},
	{"ptp.phc_sys_offset", SETTLE_S},
	{"ptp.system_clock_unsteered", 0},
	{"ptp.path_delay", SETTLE_S},
	{"ptp.no_sync", 0},
	{"ptp.daemon_restarted", 0},
	{"ptp.config_unreadable", 0},
	{"nic.no_hw_timestamping", 0},
	{"kernel.unsynchronised", 0},
	{"kernel.offset", SETTLE_S},
	{"kernel.max_error", SETTLE_S},
	{"clock.offset", SETTLE_S},
	{"cluster.grandmaster", 0},
	{"cluster.ptp_domain", 0},
	{"cluster.utc_offset", 0},
	{"cluster.reference", 0},
	{"cluster.offset_spread", SETTLE_S},
	{"cluster.ptp_spread", SETTLE_S},
	{"cluster.leap", 0},
	{"cluster.clock_median", SETTLE_S},
	{"cluster.upstream_split", SETTLE_S},
};
#define N_CODES (sizeof table / sizeof table[0])
/* room for every code: merging the file's levels never runs out */
_Static_assert(N_CODES <= THRESHOLDS_MAX_WAITS, "THRESHOLDS_MAX_WAITS below the number of codes");

static const code_entry *find(const char *name)
{
	if (!name) {
		return NULL;
	}
	for (size_t i = 0; i < N_CODES; i++) {
		if (strcmp(table[i].code, name) == 0) {
			return &table[i];
		}
	}
	return NULL;
}

size_t finding_code_count(void)
{
	return N_CODES;
}

const char *finding_code_at(size_t i)
{
	return i < N_CODES ? table[i].code : NULL;
}

const char *finding_code_lookup(const char *name)
{
	const code_entry *e = find(name);
	return e ? e->code : NULL;
}

double finding_wait_default(const char *code)
{
	const code_entry *e = find(code);
	return e ? e->wait_s : 0;
}

double finding_wait_for(const thresholds *th, const char *code)
{
	if (code) {
		for (int i = 0; i < th->n_waits && i < THRESHOLDS_MAX_WAITS; i++) {
			if (strcmp(th->waits[i].code, code) == 0) {
				return th->waits[i].seconds;
			}
		}
	}
	return finding_wait_default(code);
}

int finding_wait_set(thresholds *th, const char *code, double seconds)
{
	for (int i = 0; i < th->n_waits; i++) {
		if (strcmp(th->waits[i].code, code) == 0) {
			th->waits[i].seconds = seconds;
			return 0;
		}
	}
	if (th->n_waits >= THRESHOLDS_MAX_WAITS) {
		return -1;
	}
	th->waits[th->n_waits].code = code;
	th->waits[th->n_waits].seconds = seconds;
	th->n_waits++;
	return 0;
}

void finding_wait_settle(finding *items, int count, const finding *prev, int n_prev, const thresholds *th,
			 double now)
{
	for (int i = 0; i < count; i++) {
		finding *f = &items[i];
		f->since = now;
		for (int j = 0; j < n_prev; j++) {
			/* a code once per node: the first of the run that saw it */
			if (prev[j].code && f->code && strcmp(prev[j].code, f->code) == 0 && prev[j].since > 0 &&
			    prev[j].since <= now) {
				f->since = prev[j].since;
				break;
			}
		}
		f->pending = th->findings_wait && f->sev > SEVERITY_OK &&
			     now - f->since < finding_wait_for(th, f->code);
	}
}

/* registry.c - the collectors synctop runs, in the order their sections
 * appear in a probe response.  Adding a tool adds one line here
 * (docs/collectors.md). */
#include <config.h>

#include <string.h>

#include "collector.h"

extern const collector chrony_collector;
extern const collector chrony_select_collector;
extern const collector chrony_ntpdata_collector;
extern const collector pmc_collector;
extern const collector daemons_collector;
extern const collector ethtool_collector;
extern const collector timesyncd_collector;
extern const collector ntpq_collector;
extern const collector ntpctl_collector;
extern const collector phc_ctl_collector;
extern const collector kernel_clock_collector;

const collector *const collector_registry[] = {
	&chrony_collector,
	&chrony_select_collector,
	&chrony_ntpdata_collector,
	&pmc_collector,
	&daemons_collector,
	&ntpq_collector, /* after daemons, whose $synctop_ps it reads */
	/* after daemons, whose $synctop_ps it reads; before ethtool, which
	 * replaces an unknown $iface by the default route's */
	&phc_ctl_collector,
	&ethtool_collector,
	&timesyncd_collector, /* after daemons, whose $synctop_ps it reads */
	&ntpctl_collector, /* after daemons and ntpq: shares ntpq's `ntp` JSON key */
	&kernel_clock_collector, /* last: a daemon's view of the clock comes first */
};
const size_t collector_registry_count = sizeof collector_registry / sizeof collector_registry[0];

bool collector_part_absent(const collector *c, const observation *obs)
{
	if (c->part_absent) {
		return c->part_absent(obs);
	}
	return c->part_state && obs_state_absent(c->part_state(obs));
}

const collector *collector_find(const char *name)
{
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (strcmp(collector_registry[i]->name, name) == 0) {
			return collector_registry[i];
		}
	}
	return NULL;
}

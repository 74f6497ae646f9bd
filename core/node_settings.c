/* node_settings.c - the built-in per-node settings. */
#include <config.h>

#include "node_settings.h"

#include <string.h>

void node_settings_init(node_settings *ns)
{
	memset(ns, 0, sizeof *ns);
	thresholds_init_defaults(&ns->th);
}

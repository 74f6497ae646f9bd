/* daemons.c - the daemons collector: which time daemons run, from
 * `ps -e -o comm=`, and phc2sys's command lines (`ps -C phc2sys -o
 * comm=,args=`, a second ps only when phc2sys runs: listing every
 * process's arguments would cost each node tens of KiB a poll), parsed by
 * daemons_parse.c.
 *
 * The function leaves the process list in $synctop_ps for the phc_ctl
 * collector, which runs later in the same request (registry.c). */
#include <config.h>

#include "collector.h"
#include "daemons_parse.h"

static void daemons_decode(const tool_output *out, observation *obs)
{
	daemons_parse(out, &obs->daemons);
}

const collector daemons_collector = {
	.name = "daemons",
	.title = "time daemons running (ps)",
	.shell_functions =
		"synctop_daemons() {\n"
		"	synctop_ps=$(ps -e -o comm=)\n"
		"	synctop_r=$?\n"
		"	[ -z \"$synctop_ps\" ] || printf \"%s\\n\" \"$synctop_ps\"\n"
		"	case $synctop_ps in *phc2sys*) ps -C phc2sys -o comm=,args= ;; esac\n"
		"	return $synctop_r\n"
		"}\n",
	.command = "synctop_daemons",
	.cadence = COLLECT_EVERY_POLL,
	.decode = daemons_decode,
};

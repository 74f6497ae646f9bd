/* daemons.c - the daemons collector: which time daemons run, from
 * `ps -e -o comm=`, and phc2sys's command lines (`ps -C phc2sys -o
 * comm=,args=`), parsed by daemons_parse.c.
 *
 * The second ps runs only where phc2sys runs (listing every process's
 * arguments would cost each node tens of KiB a poll), and then once every
 * 30 polls: it costs as much CPU as the first (~9 ms on the lab VM) and
 * phc2sys's options seldom change, so the probe shell keeps its answer in
 * $synctop_args between polls and prints it each time (a new connection
 * starts afresh; an empty answer is asked again next poll).
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
		"	case $synctop_ps in\n"
		"	*phc2sys*)\n"
		"		synctop_n=$((synctop_n + 1))\n"
		"		if [ -z \"$synctop_args\" ] || [ \"$synctop_n\" -ge 30 ]; then\n"
		"			synctop_args=$(ps -C phc2sys -o comm=,args=)\n"
		"			synctop_n=0\n"
		"		fi\n"
		"		[ -z \"$synctop_args\" ] || printf \"%s\\n\" \"$synctop_args\"\n"
		"		;;\n"
		"	*) synctop_args= ;;\n"
		"	esac\n"
		"	return $synctop_r\n"
		"}\n",
	.command = "synctop_daemons",
	.cadence = COLLECT_EVERY_POLL,
	.decode = daemons_decode,
};

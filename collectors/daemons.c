/* daemons.c - the daemons collector: which time daemons run, from
 * `ps -e -o comm=`, parsed by daemons_parse.c. */
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
	.command = "ps -e -o comm=",
	.cadence = COLLECT_EVERY_POLL,
	.decode = daemons_decode,
};

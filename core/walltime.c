/* walltime.c - the client's CLOCK_REALTIME in unix seconds. */
#include <config.h>

#include "walltime.h"

#include <time.h>

double walltime_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

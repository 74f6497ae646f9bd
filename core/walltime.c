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

void monotonic_after(double seconds, struct timespec *out)
{
	clock_gettime(CLOCK_MONOTONIC, out);
	out->tv_sec += (time_t)seconds;
	out->tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (out->tv_nsec >= 1000000000L) {
		out->tv_sec++;
		out->tv_nsec -= 1000000000L;
	}
}

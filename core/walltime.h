/* walltime.h - the client's own clock (CLOCK_REALTIME) as unix seconds:
 * the time base of observations, history and events. */
#ifndef SYNCTOP_WALLTIME_H
#define SYNCTOP_WALLTIME_H

double walltime_now(void);

struct timespec;
/* CLOCK_MONOTONIC `seconds` from now, for pthread_cond_timedwait on a
 * condition made with CLOCK_MONOTONIC (the writer threads' shutdown grace:
 * a clock step must not stretch or cut it). */
void monotonic_after(double seconds, struct timespec *out);

#endif

/* walltime.h - the client's own clock (CLOCK_REALTIME) as unix seconds:
 * the time base of observations, history and events. */
#ifndef SYNCTOP_WALLTIME_H
#define SYNCTOP_WALLTIME_H

double walltime_now(void);

#endif

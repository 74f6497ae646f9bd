/* time_service.h - what the daemon that steers the system clock says about
 * it, the same whichever daemon it is (chronyd, ntpd, ...).
 *
 * A collector whose tool is such a daemon fills this view from its part of
 * the observation (collector.h time_service); the grid's SOURCE, ST, OFFSET,
 * FREQ, SKEW and LEAP columns read the first collector in the registry that
 * answers, so they work for any daemon without naming it.  Each value
 * follows its part's validity rule: unknown is NAN, INT_UNKNOWN or "". */
#ifndef SYNCTOP_TIME_SERVICE_H
#define SYNCTOP_TIME_SERVICE_H

#include <stdbool.h>

#include "observation.h"

typedef struct {
	const char *daemon;   /* "chronyd", "ntpd": for labels */
	/* The daemon has a reference (is synchronised to a source): source,
	 * stratum, offset and skew mean something only then. */
	bool referenced;
	char source[64];      /* the reference's name or ID as the daemon shows it; "" when none */
	int stratum;          /* INT_UNKNOWN when unknown */
	double offset_s;      /* node - reference, NAN when unknown */
	double frequency_ppm; /* the correction in use: positive = the uncorrected clock runs fast */
	double skew_ppm;      /* the bound on its frequency error, NAN when unknown */
	/* The leap status, in chrony's terms (an NTP leap indicator maps onto
	 * it: 00 normal, 01 insert, 10 delete, 11 unsynchronised). */
	chrony_leap leap;
} time_service_view;

#endif

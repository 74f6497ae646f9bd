/* prometheus_drift_run.h - the frequency's trends from the Prometheus
 * servers (prometheus_drift.h) into the model: asked beside the refreshes,
 * one query per window and server set, judged by the same drift rules as
 * an SSH node's. */
#ifndef SYNCTOP_PROMETHEUS_DRIFT_RUN_H
#define SYNCTOP_PROMETHEUS_DRIFT_RUN_H

#include "app.h"

/* Asks every server set for the last hour's trend, and for the week's when
 * it was last asked PROM_DRIFT_WEEK_EVERY_S ago or more (or never); a
 * window still being answered is not asked again.  Needs the model. */
void prometheus_drift_run_ask(app *a, double now);

/* --once / --check: the loop runs until every answer asked is in, the
 * deadline passes (timeout_s, or the week's own when it is asked) or the
 * run is interrupted. */
void prometheus_drift_run_wait(app *a, double timeout_s);

/* The week's query reads every sample of a week of every node (seconds of
 * a server's time at 10,000 nodes, bench/README.md): its requests have
 * their own timeout, PROM_DRIFT_WEEK_TIMEOUT_S or --timeout if longer. */
double prometheus_drift_run_week_timeout(const app *a);

void prometheus_drift_run_free(app *a);

#endif

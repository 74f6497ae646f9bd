/* prometheus_run.h - synctop's run when its nodes come from Prometheus. */
#ifndef SYNCTOP_PROMETHEUS_RUN_H
#define SYNCTOP_PROMETHEUS_RUN_H

#include "app.h"

/* One refresh from every server (a->opt's and the --config groups'), then
 * the one report (--once, --check) or the live view; the exit status.
 * What it allocates in a is freed by main.c's cleanup. */
int prometheus_run(app *a);

/* How many groups of the configuration have their own "prometheus": with
 * none and no --from-prometheus, the run is an SSH one. */
size_t prometheus_run_config_groups(const conffile *conf);

#endif

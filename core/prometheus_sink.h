/* prometheus_sink.h - live mode's `--prometheus FILE`, written off the loop.
 *
 * The metrics are formatted on the loop (they read the model) and handed to
 * one writer thread, which replaces the file (temporary file, fsync,
 * rename).  A slow or hung file system (an NFS textfile directory, a disk
 * under load) then delays the file, never the polls or the screen: while a
 * write is still running, later sweeps are dropped and counted, not queued.
 * Once modes write synchronously (report_prometheus_write). */
#ifndef SYNCTOP_PROMETHEUS_SINK_H
#define SYNCTOP_PROMETHEUS_SINK_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "node.h"

typedef struct prometheus_sink prometheus_sink;

/* Replaces path with data, returns 0 or -1 with err filled (the thread runs
 * it; atomic_file_replace unless a test gives another). */
typedef int (*prometheus_write_fn)(const char *path, const char *data, size_t len, char *err,
				   size_t err_len);

/* Called on the loop after each write ended: err is NULL on success. */
typedef void (*prometheus_done_fn)(void *ctx, const char *err);

/* NULL if the thread cannot be started (errno set). write may be NULL. */
prometheus_sink *prometheus_sink_new(struct ev_loop *loop, const char *path, prometheus_write_fn write,
				     prometheus_done_fn done, void *ctx);

/* Format nodes[0..n) now and queue the write.  Returns true if queued;
 * false if the previous write is still running (this sweep is dropped and
 * counted) or the text could not be formatted (told to `done` at once). */
bool prometheus_sink_submit(prometheus_sink *s, const node *nodes, size_t n, double now);

/* Seconds the running write has taken so far, 0 when idle. */
double prometheus_sink_busy_for(const prometheus_sink *s);

/* Sweeps dropped because a write was still running. */
unsigned long prometheus_sink_dropped(const prometheus_sink *s);

/* Waits up to `grace` seconds for a running write, then stops the thread.
 * A write hung longer than that is abandoned with its thread (the process
 * is about to exit); nothing else is left behind. */
void prometheus_sink_free(prometheus_sink *s, double grace);

#endif

/* event_file.h - live mode's `--events FILE`: every event appended as one
 * JSON line, written off the loop.
 *
 * The loop formats each line (event_file_format: it names the node from the
 * model) and queues it; one writer thread appends what is queued (O_APPEND,
 * one write per batch).  A slow or hung file system then delays the file,
 * never the polls or the screen: past EVENT_FILE_QUEUE_MAX queued lines the
 * newest are dropped and counted, and the caller warns.  (Formatting
 * costs a few µs a line: 100,000 lines are well under a second.)
 *
 * A line (README "Events" repeats this schema; event.h the fields):
 *   {"id": 12, "time": "2026-12-03T15:40:00.123Z", "unix": 1796312400.123,
 *    "scope": "node" | "group" | "cluster", "node": "gpu001" | null,
 *    "kind": "ptp_grandmaster", "subject": "eth0" | null,
 *    "from": "..." | null, "to": "..." | null, "message": "...",
 *    "group": 11 | null,                     a member: its group's id
 *    "group_kind": "ptp_grandmaster", "nodes": 41}   a group only
 *    "nodes": 3                   scope "cluster" only (cluster_finding_*):
 *                                 the nodes carrying the finding, 0 when cleared
 * Text goes through sanitize.h as in --json; jansson escapes it. */
#ifndef SYNCTOP_EVENT_FILE_H
#define SYNCTOP_EVENT_FILE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "event.h"

#define EVENT_FILE_QUEUE_MAX 100000

typedef struct event_file event_file;

/* Called on the loop after a write failed (err) or, after failures, worked
 * again (err NULL). */
typedef void (*event_file_done_fn)(void *ctx, const char *err);

/* The JSON line of e (with its '\n'), host the node's name (NULL for a
 * group or the cluster).  Returns a malloc'ed string, *len its length;
 * NULL if jansson could not format it. */
char *event_file_format(const event *e, const char *host, size_t *len);

/* NULL if the thread cannot be started (errno set).  The file is opened
 * (created 0644, appended to) by the thread, at once.  queue_max: lines
 * queued at most, 0 = EVENT_FILE_QUEUE_MAX. */
event_file *event_file_new(struct ev_loop *loop, const char *path, size_t queue_max, event_file_done_fn done,
			   void *ctx);

/* Queues e's line.  False when the queue is full (dropped, counted). */
bool event_file_submit(event_file *f, const event *e, const char *host);

/* Lines dropped because the queue was full. */
unsigned long event_file_dropped(const event_file *f);

/* Lines waiting for the thread. */
size_t event_file_queued(const event_file *f);

/* Waits up to `grace` seconds for the queue to drain, then stops the
 * thread; one hung in a write is abandoned (the process is exiting). */
void event_file_free(event_file *f, double grace);

#endif

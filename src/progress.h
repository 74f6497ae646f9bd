/* progress.h - one progress line on stderr while --once or --check waits.
 *
 * A thousand nodes take tens of seconds and the result is printed only at
 * the end; on a terminal a person wants to see that something happens and
 * which node holds things up:
 *     synctop: 1000 nodes: 812 answered, 3 failed, 185 waiting (gpu0123 and 184 more), 12.3 s
 * The line is rewritten in place (\r) about four times a second and erased
 * before the result is printed.  When stderr is not a terminal (cron, a
 * Slurm prolog, a pipe) nothing is written at all.
 *
 * The counts come from the node model (node.h) and whether the scheduler is
 * finished with each node. */
#ifndef SYNCTOP_PROGRESS_H
#define SYNCTOP_PROGRESS_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "node.h"

/* Refresh period of the line: often enough to look alive, rarely enough to
 * cost nothing next to a thousand nodes' polls. */
#define PROGRESS_PERIOD_S 0.25

/* Whether node i is finished with (answered or given up): the scheduler
 * knows, since a node that answered may still be in its clock check. */
typedef bool (*progress_finished_fn)(const void *ctx, size_t i);

typedef struct {
	size_t total;
	size_t answered;          /* finished, with a completed poll */
	size_t failed;            /* finished without one (refused, timed out, ...) */
	size_t waiting;           /* not finished */
	const char *waiting_name; /* the first waiting node in inventory order, NULL if none */
	double elapsed_s;
} progress_counts;

/* Counts nodes[0..n); waiting_name points into nodes.  Pure. */
void progress_count(const node *nodes, size_t n, progress_finished_fn finished, const void *ctx,
		    double elapsed_s, progress_counts *c);

/* The line for c, without \r or newline, cut to width - 1 columns (0 = no
 * limit) so that it never wraps; bytes of the node name that are not
 * printable ASCII become '?'.  Returns strlen(out).  Pure. */
size_t progress_format(const progress_counts *c, size_t width, char *out, size_t out_size);

typedef struct progress progress;

/* Starts the line on fd, redrawn every PROGRESS_PERIOD_S on loop from
 * nodes[0..n) and finished(ctx, i) (borrowed: they must outlive the
 * progress).  NULL, and nothing ever written, when fd is not a terminal. */
progress *progress_start(struct ev_loop *loop, int fd, const node *nodes, size_t n,
			 progress_finished_fn finished, const void *ctx);

/* Erases the line (if one was drawn) and frees p.  p may be NULL. */
void progress_stop(progress *p);

#endif

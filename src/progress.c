/* progress.c - the --once / --check progress line: counts and text (pure),
 * then a timer that rewrites the line on a terminal. */
#include <config.h>

#include "progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "xalloc.h"

/* "\r" then erase to the end of the line: the cursor is back at column 0
 * on a clean line, whatever was drawn there. */
static const char erase_line[] = "\r\033[K";

void progress_count(const node *nodes, size_t n, progress_finished_fn finished, const void *ctx,
		    double elapsed_s, progress_counts *c)
{
	memset(c, 0, sizeof *c);
	c->total = n;
	c->elapsed_s = elapsed_s;
	for (size_t i = 0; i < n; i++) {
		if (!finished(ctx, i)) {
			if (c->waiting++ == 0) {
				c->waiting_name = nodes[i].host;
			}
		} else if (nodes[i].polls_completed > 0) {
			c->answered++;
		} else {
			c->failed++;
		}
	}
}

/* The node's name as it may be shown: printable ASCII only, at most max
 * bytes (a cut name ends in "..."). */
static void show_name(const char *name, size_t max, char *out, size_t out_size)
{
	size_t n = strlen(name);
	bool cut = n > max;
	size_t keep = cut ? (max > 3 ? max - 3 : 0) : n;
	if (keep > out_size - 4) {
		keep = out_size - 4;
		cut = true;
	}
	for (size_t i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)name[i];
		out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	snprintf(out + keep, out_size - keep, "%s", cut ? "..." : "");
}

size_t progress_format(const progress_counts *c, size_t width, char *out, size_t out_size)
{
	char head[160], tail[48], name[NODE_NAME_LEN], more[48];
	if (out_size == 0) {
		return 0;
	}
	snprintf(head, sizeof head, "synctop: %zu node%s: %zu answered, %zu failed, %zu waiting", c->total,
		 c->total == 1 ? "" : "s", c->answered, c->failed, c->waiting);
	snprintf(tail, sizeof tail, ", %.1f s", c->elapsed_s >= 0 ? c->elapsed_s : 0.0);
	/* " (NAME and 184 more)": the name gives way first, so the counts and
	 * the time stay on a narrow terminal's one line */
	size_t limit = width > 0 ? width - 1 : SIZE_MAX;
	name[0] = '\0';
	more[0] = '\0';
	if (c->waiting > 0 && c->waiting_name) {
		if (c->waiting > 1) {
			snprintf(more, sizeof more, " and %zu more", c->waiting - 1);
		}
		size_t fixed = strlen(head) + strlen(" ()") + strlen(more) + strlen(tail);
		size_t room = limit > fixed ? limit - fixed : 0;
		if (room >= 4) {
			show_name(c->waiting_name, room, name, sizeof name);
		}
	}
	int len;
	if (name[0]) {
		len = snprintf(out, out_size, "%s (%s%s)%s", head, name, more, tail);
	} else {
		len = snprintf(out, out_size, "%s%s", head, tail);
	}
	size_t n = len < 0 ? 0 : (size_t)len;
	if (n >= out_size) {
		n = out_size - 1;
	}
	if (n > limit) {
		n = limit;
	}
	out[n] = '\0';
	return n;
}

/* ---- the line on a terminal --------------------------------------------- */

struct progress {
	struct ev_loop *loop;
	int fd;
	const node *nodes;
	size_t n;
	progress_finished_fn finished;
	const void *ctx;
	ev_tstamp started;
	ev_timer timer;
	bool drawn; /* something is on the line that must be erased */
};

/* Best effort: a terminal that does not take the line loses nothing else. */
static void put(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, s, len);
		if (w <= 0) {
			return;
		}
		s += w;
		len -= (size_t)w;
	}
}

static size_t terminal_width(int fd)
{
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		return ws.ws_col;
	}
	return 80;
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	progress *p = w->data;
	progress_counts c;
	char line[512];
	progress_count(p->nodes, p->n, p->finished, p->ctx, ev_now(loop) - p->started, &c);
	/* one write per frame: the terminal never shows half a line */
	memcpy(line, erase_line, sizeof erase_line - 1);
	size_t len = sizeof erase_line - 1;
	len += progress_format(&c, terminal_width(p->fd), line + len, sizeof line - len);
	put(p->fd, line, len);
	p->drawn = true;
}

progress *progress_start(struct ev_loop *loop, int fd, const node *nodes, size_t n,
			 progress_finished_fn finished, const void *ctx)
{
	if (!isatty(fd)) {
		return NULL;
	}
	progress *p = xcalloc(1, sizeof *p);
	p->loop = loop;
	p->fd = fd;
	p->nodes = nodes;
	p->n = n;
	p->finished = finished;
	p->ctx = ctx;
	ev_now_update(loop); /* before ev_run, ev_now is the last iteration's */
	p->started = ev_now(loop);
	/* The first line after one period: a run that is over by then shows none. */
	ev_timer_init(&p->timer, on_tick, PROGRESS_PERIOD_S, PROGRESS_PERIOD_S);
	p->timer.data = p;
	ev_timer_start(loop, &p->timer);
	return p;
}

void progress_stop(progress *p)
{
	if (!p) {
		return;
	}
	ev_timer_stop(p->loop, &p->timer);
	if (p->drawn) {
		put(p->fd, erase_line, sizeof erase_line - 1);
	}
	free(p);
}

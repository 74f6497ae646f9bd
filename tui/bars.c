/* bars.c - header and footer lines, and the footer's filter editor. */
#include <config.h>

#include "bars.h"

#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "cluster.h"
#include "draw.h"
#include "textwidth.h"
#include "units.h"

/* Draws text in a role at *x and advances it; stops at cols. */
static void put(tui *t, int y, int *x, int cols, theme_role role, const char *s)
{
	if (*x >= cols) {
		return;
	}
	*x += draw_text(y, *x, cols - *x, draw_attr(role, false), s, t->utf8);
}

static void putf(tui *t, int y, int *x, int cols, theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void putf(tui *t, int y, int *x, int cols, theme_role role, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tw_ascii_micro(buf, t->utf8);
	put(t, y, x, cols, role, buf);
}

static void format_interval(double s, char *buf, size_t len)
{
	if (s < 10 && s != floor(s)) {
		snprintf(buf, len, "%.1fs", s);
	} else if (s < 120) {
		snprintf(buf, len, "%.0fs", s);
	} else {
		snprintf(buf, len, "%.0fm", s / 60);
	}
}

/* "this host: chrony +12 µs (10.0.0.1)": the reference the CLOCK column is
 * measured against, and whether it can be trusted. */
static void client_state(tui *t, int y, int *x, int cols)
{
	const node *c = t->client;
	const chrony_obs *ch = &c->obs.chrony;
	char off[UNITS_BUF_LEN], ref[sizeof ch->tracking.reference_name * 3 + 1];

	put(t, y, x, cols, ROLE_DEFAULT, "  ");
	put(t, y, x, cols, ROLE_DIM, "this host: ");
	if (!c->has_observation) {
		put(t, y, x, cols, ROLE_DIM, c->error[0] ? "not polled" : "polling");
		return;
	}
	if (ch->state != OBS_OK) {
		/* the clock checks then compare against an unsteered clock */
		put(t, y, x, cols, ROLE_STATUS_WARN,
		    ch->state == OBS_TOOL_MISSING ? "no chronyc" : "chronyd not answering");
		return;
	}
	if (ch->tracking.leap == CHRONY_LEAP_UNSYNC) {
		put(t, y, x, cols, ROLE_STATUS_WARN, "chrony not synchronised");
		return;
	}
	units_format_seconds(ch->tracking.system_time_offset_s, off, sizeof off);
	tw_clean(ch->tracking.reference_name, sizeof ch->tracking.reference_name, t->utf8, ref, sizeof ref);
	putf(t, y, x, cols, ROLE_DEFAULT, "chrony %s", off);
	if (ref[0]) {
		putf(t, y, x, cols, ROLE_DIM, " (%s)", ref);
	}
}

/* Whom the PTP nodes follow: more than one grandmaster is a split. */
static void grandmasters(tui *t, const cluster_summary *s, int *xp, int cols)
{
	int x = *xp;
	size_t total = s->n_gms + s->gms_more;
	put(t, 1, &x, cols, ROLE_DEFAULT, "  ");
	if (total > 1) {
		putf(t, 1, &x, cols, ROLE_BADGE_CRIT, " %zu grandmasters ", total);
		put(t, 1, &x, cols, ROLE_DEFAULT, " ");
	} else {
		put(t, 1, &x, cols, ROLE_DEFAULT, "GM ");
	}
	for (size_t i = 0; i < s->n_gms && x < cols; i++) {
		char id[PTP_ID_LEN * 3 + 1];
		tw_clean(s->gms[i].identity, sizeof s->gms[i].identity, t->utf8, id, sizeof id);
		putf(t, 1, &x, cols, total > 1 ? ROLE_STATUS_CRIT : ROLE_DEFAULT, "%s%s", i ? ", " : "", id);
		putf(t, 1, &x, cols, ROLE_DIM, " (%zu)", s->gms[i].nodes);
	}
	if (s->gms_more) {
		putf(t, 1, &x, cols, ROLE_DIM, " +%zu more", s->gms_more);
	}
	*xp = x;
}

void bars_draw_header(tui *t, int cols)
{
	cluster_summary s;
	char a[UNITS_BUF_LEN], b[UNITS_BUF_LEN], when[32], interval[16];
	int x = 0;

	cluster_summarise(t->nodes, t->n_nodes, &s);

	/* line 0: identity, counts, polling */
	draw_fill(0, 0, cols, draw_attr(ROLE_HEADER, false));
	put(t, 0, &x, cols, ROLE_HEADER, " synctop ");
	putf(t, 0, &x, cols, ROLE_HEADER, " %zu node%s ", s.nodes, s.nodes == 1 ? "" : "s");
	if (s.crit) {
		putf(t, 0, &x, cols, ROLE_BADGE_CRIT, " %zu crit ", s.crit);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	if (s.unknown) {
		putf(t, 0, &x, cols, ROLE_BADGE_UNKNOWN, " %zu unknown ", s.unknown);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	if (s.warn) {
		putf(t, 0, &x, cols, ROLE_BADGE_WARN, " %zu warn ", s.warn);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	putf(t, 0, &x, cols, ROLE_BADGE_OK, " %zu ok ", s.ok);

	/* right side: polling state and freshness */
	format_interval(scheduler_interval(t->sched), interval, sizeof interval);
	when[0] = '\0';
	if (t->last_update > 0) {
		time_t tt = (time_t)t->last_update;
		struct tm tm;
		if (localtime_r(&tt, &tm)) {
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		}
	}
	char right[128];
	snprintf(right, sizeof right, "poll %s  updated %s ", interval, when[0] ? when : "never");
	int rw = tw_width(right) + (scheduler_paused(t->sched) ? 9 : 0);
	if (x + 2 + rw <= cols) {
		int rx = cols - rw;
		if (scheduler_paused(t->sched)) {
			put(t, 0, &rx, cols, ROLE_BADGE_WARN, " PAUSED ");
			put(t, 0, &rx, cols, ROLE_HEADER, " ");
		}
		put(t, 0, &rx, cols, ROLE_HEADER, right);
	} else if (scheduler_paused(t->sched) && x + 9 <= cols) {
		int rx = cols - 8;
		put(t, 0, &rx, cols, ROLE_BADGE_WARN, " PAUSED ");
	}

	/* line 1: how far apart, and whom they follow */
	x = 0;
	draw_fill(1, 0, cols, draw_attr(ROLE_DEFAULT, false));
	put(t, 1, &x, cols, ROLE_DEFAULT, " ");
	if (s.chrony_nodes > 0) {
		units_format_seconds(s.max_abs_offset_s, a, sizeof a);
		units_format_seconds(s.offset_spread_s, b, sizeof b);
		/* magnitudes: the sign of a max |x| or a spread says nothing */
		putf(t, 1, &x, cols, ROLE_DEFAULT, "max |offset| %s  spread %s", a + (a[0] == '+'),
		     b + (b[0] == '+'));
	} else {
		put(t, 1, &x, cols, ROLE_DIM, "no chrony offsets");
	}
	if (s.ptp_nodes > 0) {
		units_format_ns((int64_t)s.ptp_max_abs_offset_ns, a, sizeof a);
		units_format_ns((int64_t)s.ptp_offset_spread_ns, b, sizeof b);
		putf(t, 1, &x, cols, ROLE_DEFAULT, "  PTP max %s  spread %s", a + (a[0] == '+'),
		     b + (b[0] == '+'));
	}
	if (s.n_gms > 0) {
		grandmasters(t, &s, &x, cols);
	}
	if (t->client) {
		client_state(t, 1, &x, cols);
	}
}

/* ---------------------------------------------------------------- footer */

typedef struct {
	const char *key, *label;
} hint;

static const hint grid_hints[] = {
	{"Enter", "detail"}, {"/", "filter"}, {"s", "sort"}, {"r", "reverse"}, {"n", "next problem"},
	{"R", "poll now"}, {"p", "pause"}, {"t", "theme"}, {"?", "help"}, {"q", "quit"},
};
static const hint detail_hints[] = {
	{"Esc", "back"}, {"n/N", "next/prev problem"}, {"j/k", "scroll"}, {"R", "poll now"},
	{"p", "pause"}, {"?", "help"},
};
static const hint help_hints[] = {
	{"Esc", "close"}, {"j/k", "scroll"},
};

void bars_draw_footer(tui *t, int y, int cols)
{
	int x = 0;
	const hint *hints;
	size_t n;

	draw_fill(y, 0, cols, draw_attr(ROLE_FOOTER, false));
	if (t->editing) {
		char shown[FILTER_TEXT_LEN * 3 + 1];
		put(t, y, &x, cols, ROLE_FILTER, " filter: ");
		/* typed by the user, but may hold pasted control characters */
		tw_clean(t->edit, sizeof t->edit, t->utf8, shown, sizeof shown);
		put(t, y, &x, cols, ROLE_FILTER, shown);
		if (x < cols) {
			draw_text(y, x, 1, draw_attr(ROLE_FILTER, false) | A_REVERSE, " ", t->utf8);
			x++;
		}
		put(t, y, &x, cols, ROLE_FOOTER, "  Enter keep  Esc cancel  regex ok, !x negates ");
		putf(t, y, &x, cols, ROLE_FOOTER, " %zu of %zu ", t->n_rows, t->n_nodes);
		return;
	}
	if (t->message[0] && tui_now() < t->message_until) {
		put(t, y, &x, cols, t->message_role, " ");
		put(t, y, &x, cols, t->message_role, t->message);
		put(t, y, &x, cols, t->message_role, " ");
		put(t, y, &x, cols, ROLE_FOOTER, " ");
	}
	if (filter_active(&t->filter) && !t->help) {
		char shown[FILTER_TEXT_LEN * 3 + 1];
		tw_clean(t->filter.text, sizeof t->filter.text, t->utf8, shown, sizeof shown);
		put(t, y, &x, cols, ROLE_FILTER, " /");
		put(t, y, &x, cols, ROLE_FILTER, shown);
		putf(t, y, &x, cols, ROLE_FILTER, " %zu of %zu ", t->n_rows, t->n_nodes);
		put(t, y, &x, cols, ROLE_FOOTER, " ");
	}
	if (t->help) {
		hints = help_hints;
		n = sizeof help_hints / sizeof help_hints[0];
	} else if (t->screen == SCREEN_DETAIL) {
		hints = detail_hints;
		n = sizeof detail_hints / sizeof detail_hints[0];
	} else {
		hints = grid_hints;
		n = sizeof grid_hints / sizeof grid_hints[0];
	}
	for (size_t i = 0; i < n; i++) {
		/* a hint is shown whole or not at all */
		int need = tw_width(hints[i].key) + tw_width(hints[i].label) + 2;
		if (x + need > cols) {
			break;
		}
		put(t, y, &x, cols, ROLE_FOOTER_KEY, hints[i].key);
		put(t, y, &x, cols, ROLE_FOOTER, " ");
		put(t, y, &x, cols, ROLE_FOOTER, hints[i].label);
		put(t, y, &x, cols, ROLE_FOOTER, " ");
	}
}

/* ---------------------------------------------------------- filter edit */

static void apply_edit(tui *t)
{
	char err[160];
	if (filter_set(&t->filter, t->edit, err, sizeof err) != 0) {
		tui_message(t, ROLE_MESSAGE, "%s", err);
	}
	t->top = 0;
	tui_refresh_rows(t);
}

void bars_filter_begin(tui *t)
{
	t->editing = true;
	snprintf(t->edit, sizeof t->edit, "%s", t->filter.text);
	snprintf(t->edit_before, sizeof t->edit_before, "%s", t->filter.text);
}

static void delete_last_char(char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		n--;
		/* stop at the first byte of a UTF-8 sequence */
		if (((unsigned char)s[n] & 0xc0) != 0x80) {
			break;
		}
	}
	s[n] = '\0';
}

bool bars_filter_key(tui *t, int key)
{
	if (!t->editing) {
		return false;
	}
	if (key == '\n' || key == '\r' || key == TK(KEY_ENTER)) {
		t->editing = false;
		apply_edit(t);
		return true;
	}
	if (key == TK_ESC) {
		t->editing = false;
		snprintf(t->edit, sizeof t->edit, "%s", t->edit_before);
		apply_edit(t);
		return true;
	}
	if (key == TK(KEY_BACKSPACE) || key == 127 || key == TK_CTRL('h')) {
		if (t->edit[0] == '\0') {
			/* backspace on an empty filter leaves the editor */
			t->editing = false;
		}
		delete_last_char(t->edit);
		apply_edit(t);
		return true;
	}
	if (key == TK_CTRL('u')) {
		t->edit[0] = '\0';
		apply_edit(t);
		return true;
	}
	if (key >= 0x20 && key < 0x110000 && key != 127) {
		char mb[MB_LEN_MAX + 1];
		mbstate_t ps;
		size_t len, have = strlen(t->edit);
		memset(&ps, 0, sizeof ps);
		len = wcrtomb(mb, (wchar_t)key, &ps);
		if (len != (size_t)-1 && have + len < sizeof t->edit) {
			memcpy(t->edit + have, mb, len);
			t->edit[have + len] = '\0';
			apply_edit(t);
		}
		return true;
	}
	/* everything else (arrows, function keys) is swallowed while typing */
	return true;
}

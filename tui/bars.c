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
#include "tui_state.h"
#include "units.h"

/* Draws text in a role at *x and advances it; stops at cols. */
static void put(const tui *t, int y, int *x, int cols, theme_role role, const char *s)
{
	if (*x >= cols) {
		return;
	}
	*x += draw_text(y, *x, cols - *x, draw_attr(role, false), s, t->utf8);
}

static void putf(const tui *t, int y, int *x, int cols, theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void putf(const tui *t, int y, int *x, int cols, theme_role role, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tw_ascii_micro(buf, t->utf8);
	put(t, y, x, cols, role, buf);
}

/* What the filter keeps: nodes on the grid, events on the events screen
 * ("+" while the scan of the log is still under way). */
static void put_match_count(const tui *t, int y, int *x, int cols, theme_role role)
{
	if (t->screen == SCREEN_EVENTS) {
		putf(t, y, x, cols, role, " %zu event%s%s ", t->events.n_rows, t->events.n_rows == 1 ? "" : "s",
		     events_scanning(&t->events) ? "+" : "");
		return;
	}
	putf(t, y, x, cols, role, " %zu of %zu ", t->view.n_rows, t->n_nodes);
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
static void client_state(const tui *t, int y, int *x, int cols)
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

/* The class of a grandmaster the fleet follows, in the words of
 * ptp_clock_class_meaning up to its first ':' ("free-running default"),
 * toned warn when synctop warns about it (pmc_rules.c).  The words only
 * when there is one grandmaster: with several, the split is the news. */
static void gm_class(const tui *t, int cls, bool words, int *x, int cols)
{
	if (cls == INT_UNKNOWN) {
		return;
	}
	ptp_class_kind kind = ptp_clock_class_kind(cls);
	bool fine = kind == PTP_CLASS_LOCKED || kind == PTP_CLASS_PROFILE || kind == PTP_CLASS_UNKNOWN;
	putf(t, 1, x, cols, fine ? ROLE_DEFAULT : ROLE_STATUS_WARN, " class %d", cls);
	if (words) {
		const char *m = ptp_clock_class_meaning(cls);
		putf(t, 1, x, cols, ROLE_DIM, " %.*s", (int)strcspn(m, ":"), m);
	}
}

/* Whom the PTP nodes follow: more than one grandmaster is a split. */
static void grandmasters(const tui *t, const cluster_summary *s, int *xp, int cols)
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
		gm_class(t, s->gms[i].clock_class, total == 1, &x, cols);
	}
	if (s->gms_more) {
		putf(t, 1, &x, cols, ROLE_DIM, " +%zu more", s->gms_more);
	}
	*xp = x;
}

void bars_draw_header(const tui *t, int cols)
{
	const cluster_summary *sp = &t->summary;
	char a[UNITS_BUF_LEN], b[UNITS_BUF_LEN], when[32], interval[16];
	int x = 0;

	/* t->summary: summarised by tui_frame_prepare when the model changed */
	/* line 0: identity, counts, polling */
	draw_fill(0, 0, cols, draw_attr(ROLE_HEADER, false));
	put(t, 0, &x, cols, ROLE_HEADER, " synctop ");
	putf(t, 0, &x, cols, ROLE_HEADER, " %zu node%s ", sp->nodes, sp->nodes == 1 ? "" : "s");
	if (sp->shown[NODE_STATUS_CRIT]) {
		putf(t, 0, &x, cols, ROLE_BADGE_CRIT, " %zu crit ", sp->shown[NODE_STATUS_CRIT]);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	if (sp->unknown) {
		putf(t, 0, &x, cols, ROLE_BADGE_UNKNOWN, " %zu unknown ", sp->unknown);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	if (sp->shown[NODE_STATUS_WARN]) {
		putf(t, 0, &x, cols, ROLE_BADGE_WARN, " %zu warn ", sp->shown[NODE_STATUS_WARN]);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	if (sp->shown[NODE_STATUS_PENDING]) {
		/* findings that have not lasted their `for` yet (finding_wait.h) */
		putf(t, 0, &x, cols, ROLE_BADGE_PENDING, " %zu pending ", sp->shown[NODE_STATUS_PENDING]);
		put(t, 0, &x, cols, ROLE_HEADER, " ");
	}
	putf(t, 0, &x, cols, ROLE_BADGE_OK, " %zu ok ", sp->shown[NODE_STATUS_OK]);
	if (t->view.connecting > 0) {
		/* counted among the unknown: say why they have nothing to show yet */
		putf(t, 0, &x, cols, ROLE_HEADER, "  %zu connecting", t->view.connecting);
	}
	if (t->event_log) {
		/* tui_frame_prepare counted them (a group counts once) */
		putf(t, 0, &x, cols, ROLE_HEADER, "  %zu event%s/5 min", t->recent_events,
		     t->recent_events == 1 ? "" : "s");
	}
	if (t->history_off) {
		/* --state-dir could not be used: the log and the footer said why */
		put(t, 0, &x, cols, ROLE_HEADER, "  ");
		put(t, 0, &x, cols, ROLE_BADGE_WARN, " no history ");
	}

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
	if (t->source_error[0]) {
		/* the nodes' source failed: first, since the rest is older */
		char why[sizeof t->source_error * 3 + 1];
		tw_clean(t->source_error, sizeof t->source_error, t->utf8, why, sizeof why);
		put(t, 1, &x, cols, ROLE_BADGE_WARN, " source ");
		put(t, 1, &x, cols, ROLE_STATUS_WARN, " ");
		put(t, 1, &x, cols, ROLE_STATUS_WARN, why);
		put(t, 1, &x, cols, ROLE_DEFAULT, "  ");
	}
	if (sp->chrony_nodes > 0) {
		units_format_seconds(sp->max_abs_offset_s, a, sizeof a);
		units_format_seconds(sp->offset_spread_s, b, sizeof b);
		/* magnitudes: the sign of a max |x| or a spread says nothing */
		putf(t, 1, &x, cols, ROLE_DEFAULT, "max |offset| %s  spread %s", units_unsigned(a),
		     units_unsigned(b));
	} else {
		put(t, 1, &x, cols, ROLE_DIM, "no chrony offsets");
	}
	if (sp->upstream_split_nodes > 0) {
		/* hybrid cluster: groups on different upstreams, drifting apart */
		char why[FINDING_MESSAGE_LEN * 3 + 1];
		tw_clean(sp->upstream_split, sizeof sp->upstream_split, t->utf8, why, sizeof why);
		put(t, 1, &x, cols, ROLE_DEFAULT, "  ");
		put(t, 1, &x, cols, ROLE_BADGE_WARN, " upstream split ");
		putf(t, 1, &x, cols, ROLE_STATUS_WARN, " %s", why);
	}
	if (sp->ptp_nodes > 0) {
		units_format_ns((int64_t)sp->ptp_max_abs_offset_ns, a, sizeof a);
		units_format_ns((int64_t)sp->ptp_offset_spread_ns, b, sizeof b);
		putf(t, 1, &x, cols, ROLE_DEFAULT, "  PTP max %s  spread %s", units_unsigned(a),
		     units_unsigned(b));
	}
	if (sp->n_gms > 0) {
		grandmasters(t, sp, &x, cols);
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
	{"Enter", "detail"}, {"/", "filter"}, {"e", "events"}, {"s", "sort"}, {"r", "reverse"},
	{"n", "next problem"}, {"R", "poll now"}, {"p", "pause"}, {"t", "theme"}, {"?", "help"}, {"q", "quit"},
};
static const hint events_hints[] = {
	{"Enter", "node / expand group"}, {"/", "filter"}, {"Esc", "back"}, {"j/k", "move"}, {"?", "help"},
};
static const hint detail_hints[] = {
	{"Esc", "back"}, {"n/N", "next/prev problem"}, {"j/k", "scroll"}, {"R", "poll now"},
	{"p", "pause"}, {"?", "help"},
};
static const hint help_hints[] = {
	{"Esc", "close"}, {"j/k", "scroll"},
};

void bars_draw_footer(const tui *t, int y, int cols)
{
	int x = 0;
	const hint *hints;
	size_t n;

	draw_fill(y, 0, cols, draw_attr(ROLE_FOOTER, false));
	if (t->edit.editing) {
		char shown[FILTER_TEXT_LEN * 3 + 1];
		put(t, y, &x, cols, ROLE_FILTER, " filter: ");
		/* typed by the user, but may hold pasted control characters */
		tw_clean(t->edit.text, sizeof t->edit.text, t->utf8, shown, sizeof shown);
		put(t, y, &x, cols, ROLE_FILTER, shown);
		if (x < cols) {
			draw_text(y, x, 1, draw_attr(ROLE_FILTER, false) | A_REVERSE, " ", t->utf8);
			x++;
		}
		put(t, y, &x, cols, ROLE_FOOTER, "  Enter keep  Esc cancel  regex ok, !x negates ");
		put_match_count(t, y, &x, cols, ROLE_FOOTER);
		return;
	}
	if (t->message[0] && t->now < t->message_until) {
		put(t, y, &x, cols, t->message_role, " ");
		put(t, y, &x, cols, t->message_role, t->message);
		put(t, y, &x, cols, t->message_role, " ");
		put(t, y, &x, cols, ROLE_FOOTER, " ");
	}
	if (filter_active(&t->view.filter) && !t->help.open) {
		char shown[FILTER_TEXT_LEN * 3 + 1];
		tw_clean(t->view.filter.text, sizeof t->view.filter.text, t->utf8, shown, sizeof shown);
		put(t, y, &x, cols, ROLE_FILTER, " /");
		put(t, y, &x, cols, ROLE_FILTER, shown);
		put_match_count(t, y, &x, cols, ROLE_FILTER);
		put(t, y, &x, cols, ROLE_FOOTER, " ");
	}
	if (t->help.open) {
		hints = help_hints;
		n = sizeof help_hints / sizeof help_hints[0];
	} else if (t->screen == SCREEN_DETAIL) {
		hints = detail_hints;
		n = sizeof detail_hints / sizeof detail_hints[0];
	} else if (t->screen == SCREEN_EVENTS) {
		hints = events_hints;
		n = sizeof events_hints / sizeof events_hints[0];
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

/* Filters the view by the text typed so far. */
static handler_result apply_edit(filter_editor *e, view *v)
{
	char err[160];
	if (view_set_filter(v, e->text, err, sizeof err) != 0) {
		return handler_message(HR_HANDLED | HR_REDRAW, ROLE_MESSAGE, "%s", err);
	}
	return handler_flags(HR_HANDLED | HR_REDRAW);
}

void bars_filter_begin(filter_editor *e, const view *v)
{
	e->editing = true;
	snprintf(e->text, sizeof e->text, "%s", v->filter.text);
	snprintf(e->before, sizeof e->before, "%s", v->filter.text);
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

handler_result bars_filter_key(filter_editor *e, view *v, int key)
{
	if (!e->editing) {
		return handler_flags(HR_IGNORED);
	}
	if (key == '\n' || key == '\r' || key == TK(KEY_ENTER)) {
		e->editing = false;
		return apply_edit(e, v);
	}
	if (key == TK_ESC) {
		e->editing = false;
		snprintf(e->text, sizeof e->text, "%s", e->before);
		return apply_edit(e, v);
	}
	if (key == TK(KEY_BACKSPACE) || key == 127 || key == TK_CTRL('h')) {
		if (e->text[0] == '\0') {
			/* backspace on an empty filter leaves the editor */
			e->editing = false;
		}
		delete_last_char(e->text);
		return apply_edit(e, v);
	}
	if (key == TK_CTRL('u')) {
		e->text[0] = '\0';
		return apply_edit(e, v);
	}
	if (key >= 0x20 && key < 0x110000 && key != 127) {
		char mb[MB_LEN_MAX + 1];
		mbstate_t ps;
		size_t len, have = strlen(e->text);
		memset(&ps, 0, sizeof ps);
		len = wcrtomb(mb, (wchar_t)key, &ps);
		if (len != (size_t)-1 && have + len < sizeof e->text) {
			memcpy(e->text + have, mb, len);
			e->text[have + len] = '\0';
			return apply_edit(e, v);
		}
		return handler_flags(HR_HANDLED);
	}
	/* everything else (arrows, function keys) is swallowed while typing */
	return handler_flags(HR_HANDLED);
}

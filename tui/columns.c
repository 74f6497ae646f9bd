/* columns.c - grid cells, sort keys and the width-driven column choice. */
#include <config.h>

#include "columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "health.h"
#include "collector.h"
#include "time_service.h"
#include "sparkline.h"
#include "textwidth.h"
#include "units.h"

/* The grid's own columns (grid_column.h lists their places and ranks). */
static const column_info core_columns[COL_CORE_COUNT] = {
	[COL_NODE] = {"NODE", "node", "host name as given", 10, 32, false, true, false, 10, 0},
	[COL_STATUS] = {"STAT", "status", "worst finding: OK, WARN, CRIT; UNKN = no answer",
			6, 6, false, true, true, 20, 1},
	[COL_SOURCE] = {"SOURCE", "source", "PTP grandmaster when a port follows one, else the time daemon's reference",
			10, 24, false, true, false, 30, 6},
	[COL_STRATUM] = {"ST", "stratum", "PTP steps removed, or the time daemon's stratum", 3, 3, true, true, false, 40, 12},
	[COL_OFFSET] = {"OFFSET", "offset",
			"the time daemon's offset (chrony System time), node minus reference; OFFSET/PTP "
			"when the PTP OFFSET column does not fit: a node without a time daemon shows its "
			"PTP offset, marked P",
			11, 11, true, true, true, 50, 2},
	[COL_CLOCK] = {"CLOCK", "clock",
		       "node clock minus this machine's, measured over SSH (drill-down: +- uncertainty)",
		       11, 11, true, true, true, 60, 10},
	[COL_SPARK] = {"TREND", "trend", "offset over the last samples (PTP offset on PTP-only nodes)",
		       8, 120, false, false, false, 70, 11},
	[COL_FREQ] = {"FREQ ppm", "frequency", "frequency error of the local clock the time daemon corrects, ppm",
		      9, 9, true, true, true, 80, 3},
	[COL_SKEW] = {"SKEW", "skew", "the time daemon's skew (frequency error bound), ppm", 7, 7, true, true, true, 90, 14},
	[COL_LEAP] = {"LEAP", "leap", "leap status", 6, 6, false, true, true, 100, 4},
	[COL_HWTS] = {"TS", "timestamping", "NIC timestamping: HW, SW, none, ? unknown (chrony: its NTP packets)",
		      4, 4, false, true, false, 140, 5},
	[COL_RTT] = {"RTT", "rtt", "time the last poll took, round trip", 7, 7, true, true, true, 150, 15},
	[COL_AGE] = {"AGE", "age", "since the last completed poll", 5, 5, true, true, true, 160, 8},
};

/* Every column by id: the grid's, then each collector's in registry order. */
static const column_info *column_table[COLUMNS_MAX];
static int column_total;

static void columns_build(void)
{
	if (column_total > 0) {
		return;
	}
	int n = 0;
	for (int i = 0; i < COL_CORE_COUNT; i++) {
		column_table[n++] = &core_columns[i];
	}
	for (size_t c = 0; c < collector_registry_count; c++) {
		const collector *col = collector_registry[c];
		for (size_t k = 0; k < col->n_columns && n < COLUMNS_MAX; k++) {
			column_table[n++] = &col->columns[k];
		}
	}
	column_total = n;
}

int columns_count(void)
{
	columns_build();
	return column_total;
}

column_id columns_find(const char *key)
{
	columns_build();
	for (int i = 0; i < column_total; i++) {
		if (strcmp(column_table[i]->key, key) == 0) {
			return i;
		}
	}
	return -1;
}

const column_info *columns_info(column_id id)
{
	columns_build();
	return column_table[id >= 0 && id < column_total ? id : COL_NODE];
}

static bool is_collector_column(column_id id)
{
	return id >= COL_CORE_COUNT && id < columns_count();
}

/* ------------------------------------------------------------ the model */

/* The port that says most about the node: the one it syncs through. */
/* PTP steers the node when a port follows a master. */
static bool ptp_follows(const node *nd)
{
	return nd->has_observation && ptp_following_port(&nd->obs.ptp) != NULL;
}

/* The view of the daemon that steers the system clock (time_service.h):
 * the first collector in the registry whose daemon answered; false when
 * none did. */
static bool service_of(const node *nd, time_service_view *out)
{
	if (!nd->has_observation) {
		return false;
	}
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *col = collector_registry[i];
		if (col->time_service && col->time_service(&nd->obs, out)) {
			return true;
		}
	}
	return false;
}

static bool service_ok(const node *nd)
{
	time_service_view v;
	return service_of(nd, &v);
}

static bool clock_ok(const node *nd)
{
	return nd->has_observation && nd->obs.clock.state == OBS_OK && isfinite(nd->obs.clock.offset_s);
}

static bool ptp_ok(const node *nd)
{
	return nd->has_observation && nd->obs.ptp.state == OBS_OK;
}

void columns_source(const node *nd, char *out, size_t out_len)
{
	time_service_view v;
	bool service = service_of(nd, &v);

	if (out_len == 0) {
		return;
	}
	out[0] = '\0';
	if (ptp_follows(nd) || (!service && ptp_ok(nd))) {
		const char *gm = cluster_node_grandmaster(&nd->obs.ptp);
		if (gm) { /* a LISTENING ptp4l names itself: nobody's time */
			snprintf(out, out_len, "%.*s", (int)strnlen(gm, PTP_ID_LEN), gm);
		}
	} else if (service) {
		snprintf(out, out_len, "%.*s", (int)strnlen(v.source, sizeof v.source), v.source);
	}
}

double columns_abs_offset(const node *nd)
{
	time_service_view v;
	if (service_of(nd, &v) && isfinite(v.offset_s)) {
		return fabs(v.offset_s);
	}
	if (ptp_follows(nd) && nd->obs.ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
		return fabs((double)nd->obs.ptp.offset_from_master_ns) / 1e9;
	}
	return NAN;
}

static const char *hw_timestamping(const node *nd)
{
	const char *ts = observation_timestamping(&nd->obs);
	return ts ? ts : "?";
}

static const char *leap_short(const node *nd)
{
	time_service_view v;
	if (service_of(nd, &v)) {
		switch (v.leap) {
		case CHRONY_LEAP_NORMAL: return "normal";
		case CHRONY_LEAP_INSERT: return "insert";
		case CHRONY_LEAP_DELETE: return "delete";
		case CHRONY_LEAP_UNSYNC: return "unsync";
		case CHRONY_LEAP_UNKNOWN: return "?";
		}
		return "?";
	}
	if (ptp_ok(nd)) {
		const ptp_obs *p = &nd->obs.ptp;
		if (p->leap61 == INT_UNKNOWN || p->leap59 == INT_UNKNOWN) {
			return "?";
		}
		return p->leap61 ? "insert" : p->leap59 ? "delete" : "normal";
	}
	return "-";
}

/* ------------------------------------------------------------- findings */

/* Which of the grid's own cells a finding is about (a collector's column
 * lists its codes itself); codes not listed only colour the status. */
static const struct {
	const char *code;
	column_id col;
} finding_cells[] = {
	{"chrony.offset", COL_OFFSET},
	{"ntp.offset", COL_OFFSET},
	{"timesyncd.offset", COL_OFFSET},
	{"ntp.leap", COL_LEAP},
	{"timesyncd.leap", COL_LEAP},
	{"ntp.no_system_peer", COL_SOURCE},
	{"ntp.reach", COL_SOURCE},
	{"timesyncd.unsynchronised", COL_SOURCE},
	{"chrony.error_bound", COL_OFFSET},
	{"chrony.frequency", COL_FREQ},
	{"chrony.drift", COL_FREQ},
	{"chrony.skew", COL_SKEW},
	{"chrony.leap", COL_LEAP},
	{"chrony.no_selected_source", COL_SOURCE},
	{"chrony.reach", COL_SOURCE},
	{"chrony.local_reference", COL_SOURCE},
	{"ptp.gm_absent", COL_SOURCE},
	{"nic.no_hw_timestamping", COL_HWTS},
	{"time.no_service", COL_SOURCE},
	{"clock.offset", COL_CLOCK},
	{"cluster.clock_median", COL_CLOCK},
	{"cluster.offset_spread", COL_OFFSET},
	{"cluster.grandmaster", COL_SOURCE},
	{"cluster.ptp_domain", COL_SOURCE},
	{"cluster.reference", COL_SOURCE},
	{"cluster.leap", COL_LEAP},
	{"cluster.utc_offset", COL_LEAP},
};

static bool finding_about(column_id id, const char *code)
{
	if (is_collector_column(id)) {
		const char *const *codes = columns_info(id)->finding_codes;
		for (size_t k = 0; codes && codes[k]; k++) {
			if (strcmp(codes[k], code) == 0) {
				return true;
			}
		}
		return false;
	}
	for (size_t k = 0; k < sizeof finding_cells / sizeof finding_cells[0]; k++) {
		if (finding_cells[k].col == id && strcmp(finding_cells[k].code, code) == 0) {
			return true;
		}
	}
	return false;
}

cell_tone columns_finding_tone(const node *nd, column_id id)
{
	severity worst = SEVERITY_OK;
	int count = nd->findings.count < 0 ? 0
		    : nd->findings.count > MAX_FINDINGS ? MAX_FINDINGS : nd->findings.count;
	for (int i = 0; i < count; i++) {
		const finding *f = &nd->findings.items[i];
		if (!f->code) {
			continue;
		}
		if (f->sev > worst && finding_about(id, f->code)) {
			worst = f->sev;
		}
	}
	return worst == SEVERITY_CRIT ? TONE_CRIT : worst == SEVERITY_WARN ? TONE_WARN : TONE_PLAIN;
}

/* ---------------------------------------------------------------- cells */

static void format_ppm(double v, bool sign, char *out, size_t len)
{
	if (!isfinite(v)) {
		snprintf(out, len, "?");
	} else {
		snprintf(out, len, sign ? "%+.3f" : "%.3f", v);
	}
}

static void format_age(double age, char *out, size_t len)
{
	if (age < 0) {
		age = 0; /* the clock stepped back: it is fresh, not from the future */
	}
	if (age < 60) {
		snprintf(out, len, "%ds", (int)age);
	} else if (age < 3600) {
		snprintf(out, len, "%dm", (int)(age / 60));
	} else if (age < 86400) {
		snprintf(out, len, "%dh", (int)(age / 3600));
	} else if (age < 86400.0 * 9999) {
		snprintf(out, len, "%dd", (int)(age / 86400));
	} else {
		snprintf(out, len, "old");
	}
}

static void format_seconds_cell(double s, char *out, size_t len)
{
	if (!isfinite(s)) {
		snprintf(out, len, "?");
	} else {
		units_format_seconds(s, out, len);
	}
}

/* A collector's cell; true when the value does not apply to the node. */
static bool collector_cell(const node *nd, const column_info *info, bool utf8, char *out, size_t len)
{
	char raw[CELL_TEXT_LEN / 4];
	grid_cell kind = GRID_CELL_NA;
	raw[0] = '\0';
	if (nd->has_observation && info->cell) {
		kind = info->cell(&nd->obs, raw, sizeof raw);
	}
	switch (kind) {
	case GRID_CELL_VALUE:
		tw_ascii_micro(raw, utf8); /* our units' µ before cleaning, which would escape it */
		tw_clean(raw, sizeof raw, utf8, out, len);
		return false;
	case GRID_CELL_UNKNOWN:
		snprintf(out, len, "?");
		return false;
	case GRID_CELL_NA:
		break;
	}
	snprintf(out, len, "-");
	return true;
}

void columns_cell(const node *nd, column_id id, int width, double now, bool utf8, column_cell *out)
{
	const observation *o = &nd->obs;
	char raw[128];
	bool na = false; /* the value does not apply to this node */
	time_service_view sv;
	bool service = service_of(nd, &sv);
	bool referenced = service && sv.referenced;

	out->text[0] = '\0';
	out->tone = TONE_PLAIN;
	switch (id) {
	case COL_NODE:
		tw_clean(nd->host, sizeof nd->host, utf8, out->text, sizeof out->text);
		return;
	case COL_STATUS: {
		static const char *const badge[] = {
			[NODE_STATUS_OK] = "  OK  ", [NODE_STATUS_WARN] = " WARN ",
			[NODE_STATUS_CRIT] = " CRIT ", [NODE_STATUS_UNKNOWN] = " UNKN ",
			[NODE_STATUS_PENDING] = " PEND ",
		};
		snprintf(out->text, sizeof out->text, "%s", badge[health_live_status(nd)]);
		out->tone = TONE_BADGE;
		return;
	}
	case COL_SOURCE:
		columns_source(nd, raw, sizeof raw);
		if (raw[0]) {
			tw_clean(raw, sizeof raw, utf8, out->text, sizeof out->text);
		} else {
			na = !(referenced || ptp_ok(nd));
			snprintf(out->text, sizeof out->text, na ? "-" : "?");
		}
		break;
	case COL_STRATUM: {
		int v = INT_UNKNOWN;
		if (ptp_follows(nd) || (!service && ptp_ok(nd))) {
			v = o->ptp.steps_removed;
		} else if (referenced) {
			v = sv.stratum;
		} else {
			na = true;
		}
		if (na) {
			snprintf(out->text, sizeof out->text, "-");
		} else if (v == INT_UNKNOWN) {
			snprintf(out->text, sizeof out->text, "?");
		} else {
			snprintf(out->text, sizeof out->text, "%d", v);
		}
		break;
	}
	case COL_OFFSET:
		if ((na = !referenced)) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_seconds_cell(sv.offset_s, out->text, sizeof out->text);
		}
		break;
	case COL_CLOCK:
		if ((na = !clock_ok(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_seconds_cell(o->clock.offset_s, out->text, sizeof out->text);
		}
		break;
	case COL_SPARK:
		sparkline_history(&nd->history, HISTORY_OFFSET_S, HISTORY_PTP_OFFSET_NS,
				  width > 0 ? (size_t)width : 0, utf8, out->text, sizeof out->text);
		if (out->tone == TONE_PLAIN && !nd->reachable) {
			out->tone = TONE_DIM;
		}
		return;
	case COL_FREQ:
		if ((na = !service)) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ppm(sv.frequency_ppm, true, out->text, sizeof out->text);
		}
		break;
	case COL_SKEW:
		if ((na = !referenced)) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ppm(sv.skew_ppm, false, out->text, sizeof out->text);
		}
		break;
	case COL_LEAP:
		snprintf(out->text, sizeof out->text, "%s", leap_short(nd));
		na = strcmp(out->text, "-") == 0;
		break;
	case COL_HWTS:
		if ((na = !nd->has_observation)) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			snprintf(out->text, sizeof out->text, "%s", hw_timestamping(nd));
		}
		break;
	case COL_RTT:
		if ((na = !nd->has_observation)) {
			snprintf(out->text, sizeof out->text, "-");
		} else if (!isfinite(o->rtt_s)) {
			snprintf(out->text, sizeof out->text, "?");
		} else if (o->rtt_s < 0.01) {
			snprintf(out->text, sizeof out->text, "%.1f ms", o->rtt_s * 1e3);
		} else if (o->rtt_s < 10) {
			snprintf(out->text, sizeof out->text, "%.0f ms", o->rtt_s * 1e3);
		} else {
			snprintf(out->text, sizeof out->text, "%.0f s", o->rtt_s);
		}
		break;
	case COL_AGE:
		if ((na = !nd->has_observation || !isfinite(o->taken_at))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_age(now - o->taken_at, out->text, sizeof out->text);
		}
		break;
	default:
		if (!is_collector_column(id)) {
			return;
		}
		na = collector_cell(nd, columns_info(id), utf8, out->text, sizeof out->text);
		break;
	}
	tw_ascii_micro(out->text, utf8);
	if (na || (nd->has_observation && !nd->reachable) || !nd->has_observation) {
		/* Stale values are never drawn as if fresh. */
		out->tone = TONE_DIM;
	} else {
		out->tone = columns_finding_tone(nd, id);
	}
}

column_mask columns_data_mask(const node *nd)
{
	column_mask m = COLUMN_BIT(COL_NODE) | COLUMN_BIT(COL_STATUS);
	if (!nd->has_observation) {
		return m;
	}
	m |= COLUMN_BIT(COL_RTT) | COLUMN_BIT(COL_AGE);
	if (service_ok(nd)) {
		m |= COLUMN_BIT(COL_SOURCE) | COLUMN_BIT(COL_STRATUM) | COLUMN_BIT(COL_OFFSET) |
		     COLUMN_BIT(COL_SPARK) | COLUMN_BIT(COL_FREQ) | COLUMN_BIT(COL_SKEW) | COLUMN_BIT(COL_LEAP);
	}
	if (ptp_ok(nd)) {
		m |= COLUMN_BIT(COL_SOURCE) | COLUMN_BIT(COL_STRATUM) | COLUMN_BIT(COL_LEAP) | COLUMN_BIT(COL_SPARK);
	}
	if (nd->obs.nic.state == OBS_OK || ptp_primary_port(&nd->obs.ptp) || observation_timestamping(&nd->obs)) {
		m |= COLUMN_BIT(COL_HWTS);
	}
	if (clock_ok(nd)) {
		m |= COLUMN_BIT(COL_CLOCK);
	}
	for (column_id id = COL_CORE_COUNT; id < columns_count(); id++) {
		const column_info *info = columns_info(id);
		if (info->has_data && info->has_data(&nd->obs)) {
			m |= COLUMN_BIT(id);
		}
	}
	return m;
}

/* ---------------------------------------------------------------- layout */

/* Column ids ordered by a field (rank or place), ties by id. */
static void columns_ordered(bool by_place, column_id *ids, int n)
{
	for (int i = 0; i < n; i++) {
		ids[i] = i;
	}
	for (int i = 1; i < n; i++) { /* insertion sort: a handful of columns */
		column_id v = ids[i];
		const column_info *cv = columns_info(v);
		int kv = by_place ? cv->place : cv->rank;
		int j = i - 1;
		while (j >= 0) {
			const column_info *cj = columns_info(ids[j]);
			if ((by_place ? cj->place : cj->rank) <= kv) {
				break;
			}
			ids[j + 1] = ids[j];
			j--;
		}
		ids[j + 1] = v;
	}
}

int columns_in_place_order(column_id ids[COLUMNS_MAX])
{
	int n = columns_count();
	columns_ordered(true, ids, n);
	return n;
}

static void grow_column(column_id id, int upto, int node_width, int width, const bool *on, int *w, int *used)
{
	int limit = upto ? upto : columns_info(id)->max_width;
	if (id == COL_NODE && limit > node_width) {
		limit = node_width;
	}
	if (!on[id] || w[id] >= limit || *used >= width) {
		return;
	}
	int add = limit - w[id];
	if (add > width - *used) {
		add = width - *used;
	}
	w[id] += add;
	*used += add;
}

/* What an operator needs most goes in first (the ranks, grid_column.h): is
 * the clock right (offset), is it being steered sanely (frequency), is a
 * leap second coming, are the timestamps hardware ones; then where the time
 * comes from and how fresh. */
void columns_layout(int width, column_mask data_mask, int node_width, column_layout *out)
{
	int n = columns_count();
	int w[COLUMNS_MAX] = {0};
	bool on[COLUMNS_MAX] = {false};
	column_id ids[COLUMNS_MAX];
	int used = 0;
	int node_min;
	const column_info *node_info = columns_info(COL_NODE);

	/* The name says which node it is: up to 20 columns of it come before
	 * any other column; short names need no wide column. */
	if (node_width < 4) {
		node_width = 4;
	}
	if (node_width > node_info->max_width) {
		node_width = node_info->max_width;
	}
	node_min = node_width < 20 ? node_width : 20;
	if (node_min > width - 1 - columns_info(COL_STATUS)->min_width) {
		/* a narrow screen: the status still shows */
		node_min = width - 1 - columns_info(COL_STATUS)->min_width;
		node_min = node_min < 4 ? 4 : node_min;
	}

	columns_ordered(false, ids, n);
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < n; k++) {
			column_id id = ids[k];
			bool has = (data_mask & COLUMN_BIT(id)) != 0;
			if (on[id] || has != (pass == 0)) {
				continue;
			}
			int need = (id == COL_NODE ? node_min : columns_info(id)->min_width) + (used > 0 ? 1 : 0);
			if (used + need <= width || id == COL_NODE) {
				on[id] = true;
				w[id] = need - (used > 0 ? 1 : 0);
				used += need;
			}
		}
	}

	/* Spare room, in order: readable names first (the node's, the
	 * collectors' text columns such as the port state), then the trend. */
	grow_column(COL_NODE, 20, node_width, width, on, w, &used);
	for (int k = 0; k < n; k++) {
		if (is_collector_column(ids[k])) {
			grow_column(ids[k], 0, node_width, width, on, w, &used);
		}
	}
	grow_column(COL_SOURCE, 18, node_width, width, on, w, &used);
	grow_column(COL_SPARK, 30, node_width, width, on, w, &used);
	grow_column(COL_NODE, 0, node_width, width, on, w, &used);
	grow_column(COL_SOURCE, 0, node_width, width, on, w, &used);
	grow_column(COL_SPARK, 0, node_width, width, on, w, &used);

	column_id ptp = columns_find("ptp-offset");
	out->n = 0;
	out->offset_shares_ptp = ptp >= 0 && on[COL_OFFSET] && !on[ptp] && (data_mask & COLUMN_BIT(ptp)) != 0;
	columns_ordered(true, ids, n);
	int x = 0;
	for (int k = 0; k < n; k++) {
		column_id id = ids[k];
		if (!on[id]) {
			continue;
		}
		out->id[out->n] = id;
		out->x[out->n] = x;
		out->width[out->n] = w[id];
		x += w[id] + 1;
		out->n++;
	}
}

const char *columns_offset_title(const column_layout *l)
{
	return l->offset_shares_ptp ? "OFFSET/PTP" : columns_info(COL_OFFSET)->title;
}

void columns_offset_cell(const node *nd, double now, bool utf8, column_cell *out)
{
	if (service_ok(nd) || !ptp_follows(nd)) {
		columns_cell(nd, COL_OFFSET, 0, now, utf8, out);
		return;
	}
	column_cell ptp;
	columns_cell(nd, columns_find("ptp-offset"), 0, now, utf8, &ptp);
	snprintf(out->text, sizeof out->text, "P %.64s", ptp.text); /* a formatted number */
	out->tone = ptp.tone;
}

/* ------------------------------------------------------------ sort keys */

static double leap_badness(const node *nd)
{
	const char *s = leap_short(nd);
	if (strcmp(s, "unsync") == 0) {
		return 2;
	}
	if (strcmp(s, "insert") == 0 || strcmp(s, "delete") == 0) {
		return 1;
	}
	if (strcmp(s, "normal") == 0) {
		return 0;
	}
	return NAN;
}

void columns_sort_key(const node *nd, column_id id, double now, sort_key *out)
{
	const observation *o = &nd->obs;
	out->numeric = true;
	out->num = NAN;
	out->str[0] = '\0';
	time_service_view sv;
	bool service = service_of(nd, &sv);
	switch (id) {
	case COL_NODE:
		out->numeric = false;
		snprintf(out->str, sizeof out->str, "%.*s", (int)strnlen(nd->host, sizeof nd->host), nd->host);
		break;
	case COL_STATUS:
		out->num = node_status_rank(health_live_status(nd));
		break;
	case COL_SOURCE:
		out->numeric = false;
		columns_source(nd, out->str, sizeof out->str);
		break;
	case COL_OFFSET:
	case COL_SPARK:
		if (service) {
			out->num = fabs(sv.offset_s);
		}
		break;
	case COL_FREQ:
		if (service) {
			out->num = fabs(sv.frequency_ppm);
		}
		break;
	case COL_CLOCK:
		if (clock_ok(nd)) {
			out->num = fabs(o->clock.offset_s);
		}
		break;
	case COL_SKEW:
		if (service) {
			out->num = sv.skew_ppm;
		}
		break;
	case COL_LEAP:
		out->num = leap_badness(nd);
		break;
	case COL_RTT:
		if (nd->has_observation) {
			out->num = o->rtt_s;
		}
		break;
	case COL_AGE:
		if (nd->has_observation && isfinite(o->taken_at)) {
			out->num = now - o->taken_at;
		}
		break;
	/* What the cell shows, read from the model (not formatted and parsed
	 * back: sorting 10,000 nodes must stay cheap); unknown sorts last. */
	case COL_STRATUM: {
		int v = INT_UNKNOWN;
		if (ptp_follows(nd) || (!service && ptp_ok(nd))) {
			v = o->ptp.steps_removed;
		} else if (service) {
			v = sv.stratum;
		}
		if (v != INT_UNKNOWN) {
			out->num = (double)v;
		}
		break;
	}
	case COL_HWTS:
		if (nd->has_observation) {
			const char *ts = hw_timestamping(nd);
			if (strcmp(ts, "?") != 0) {
				out->numeric = false;
				snprintf(out->str, sizeof out->str, "%s", ts);
			}
		}
		break;
	default:
		if (is_collector_column(id) && nd->has_observation && columns_info(id)->sort) {
			columns_info(id)->sort(o, out);
		}
		break;
	}
	if (out->numeric && !isfinite(out->num)) {
		out->num = NAN;
	}
}

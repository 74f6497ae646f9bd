/* fuzz_config.c - the --config loader: conffile_parse on a fuzzed JSON file,
 * then conffile_resolve for a few host names (the input's first line, its
 * upper-case form, and fixed ones) and the group accessors.
 *
 * Beyond not crashing, the promises of conffile.h and docs/config.md:
 *   - a refused file gives -1, *out untouched and "fuzz.json:LINE:COLUMN:
 *     what" in err (LINE a line of the file), on one line, free of control
 *     characters; the same again for the same text, and a small err buffer
 *     is cut, never overrun;
 *   - an accepted one gives a conffile whose groups all have a non-empty
 *     name, NULL past the last;
 *   - conffile_resolve gives -1 or a group index, the same for a name in
 *     any letter case, and settings where every threshold is finite and
 *     >= 0, no warn limit is above its crit limit, expectations are
 *     auto/yes/no, the interface, upstream and grandmaster are "" or of their
 *     documented form; every node no group names gets the same settings;
 *   - with no file (cf NULL) a node gets the built-in defaults. */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "fuzz.h"
#include "node_settings.h"

#define SOURCE "fuzz.json"
#define IFACE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-"
#define UPSTREAM_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-"

static bool one_line(const char *s)
{
	return fuzz_text_safe(s, strlen(s)) && strpbrk(s, "\n\t") == NULL;
}

#define N_DOUBLES 16

/* The real-valued thresholds, in thresholds.h order. */
static void th_doubles(const thresholds *th, double d[N_DOUBLES])
{
	const double v[N_DOUBLES] = {th->chrony_offset_warn_s,         th->chrony_offset_crit_s,
				     th->chrony_error_bound_warn_s,    th->chrony_error_bound_crit_s,
				     th->chrony_frequency_warn_ppm,    th->chrony_frequency_crit_ppm,
				     th->chrony_skew_warn_ppm,         th->chrony_drift_warn_ppm_per_hour,
				     th->chrony_drift_window_s,        th->chrony_drift_min_span_s,
				     th->ptp_path_delay_jump_warn_ratio, th->clock_offset_warn_s,
				     th->clock_offset_crit_s,          th->clock_median_warn_s,
				     th->cluster_chrony_spread_warn_s, th->cluster_chrony_spread_crit_s};
	memcpy(d, v, sizeof v);
}

/* Member by member: node_settings has padding bytes. */
static bool same_settings(const node_settings *a, const node_settings *b)
{
	const thresholds *x = &a->th, *y = &b->th;
	double dx[N_DOUBLES], dy[N_DOUBLES];
	th_doubles(x, dx);
	th_doubles(y, dy);
	for (size_t i = 0; i < N_DOUBLES; i++) {
		if (dx[i] != dy[i]) {
			return false;
		}
	}
	return x->expect_chrony == y->expect_chrony && x->expect_ptp == y->expect_ptp &&
	       x->ptp_offset_warn_ns == y->ptp_offset_warn_ns && x->ptp_offset_crit_ns == y->ptp_offset_crit_ns &&
	       x->ptp_path_delay_min_samples == y->ptp_path_delay_min_samples &&
	       x->cluster_ptp_spread_warn_ns == y->cluster_ptp_spread_warn_ns &&
	       x->cluster_ptp_spread_crit_ns == y->cluster_ptp_spread_crit_ns && a->pmc_sudo == b->pmc_sudo &&
	       strcmp(a->iface, b->iface) == 0 && strcmp(a->ntp_upstream, b->ntp_upstream) == 0 &&
	       strcmp(a->grandmaster, b->grandmaster) == 0 && x->gm_traceable == y->gm_traceable;
}

static void check_settings(const node_settings *ns)
{
	const thresholds *th = &ns->th;
	FUZZ_CHECK(th->expect_chrony == EXPECT_AUTO || th->expect_chrony == EXPECT_YES ||
		   th->expect_chrony == EXPECT_NO);
	FUZZ_CHECK(th->expect_ptp == EXPECT_AUTO || th->expect_ptp == EXPECT_YES || th->expect_ptp == EXPECT_NO);

	double d[N_DOUBLES];
	th_doubles(th, d);
	for (size_t i = 0; i < N_DOUBLES; i++) {
		FUZZ_CHECK(isfinite(d[i]) && d[i] >= 0);
	}
	FUZZ_CHECK(th->ptp_offset_warn_ns >= 0 && th->ptp_offset_crit_ns >= 0);
	FUZZ_CHECK(th->cluster_ptp_spread_warn_ns >= 0 && th->cluster_ptp_spread_crit_ns >= 0);
	FUZZ_CHECK(th->ptp_path_delay_min_samples >= 0);

	/* warn never above crit, compared as the values are stored */
	FUZZ_CHECK(th->chrony_offset_warn_s <= th->chrony_offset_crit_s);
	FUZZ_CHECK(th->chrony_error_bound_warn_s <= th->chrony_error_bound_crit_s);
	FUZZ_CHECK(th->chrony_frequency_warn_ppm <= th->chrony_frequency_crit_ppm);
	FUZZ_CHECK(th->ptp_offset_warn_ns <= th->ptp_offset_crit_ns);
	FUZZ_CHECK(th->clock_offset_warn_s <= th->clock_offset_crit_s);
	FUZZ_CHECK(th->cluster_chrony_spread_warn_s <= th->cluster_chrony_spread_crit_s);
	FUZZ_CHECK(th->cluster_ptp_spread_warn_ns <= th->cluster_ptp_spread_crit_ns);

	FUZZ_CHECK(fuzz_terminated(ns->iface, sizeof ns->iface));
	FUZZ_CHECK(strspn(ns->iface, IFACE_CHARS) == strlen(ns->iface));
	FUZZ_CHECK(fuzz_terminated(ns->ntp_upstream, sizeof ns->ntp_upstream));
	FUZZ_CHECK(strspn(ns->ntp_upstream, UPSTREAM_CHARS) == strlen(ns->ntp_upstream));
	FUZZ_CHECK(ns->ntp_upstream[0] != '-');
	FUZZ_CHECK(fuzz_terminated(ns->grandmaster, sizeof ns->grandmaster));
	size_t gm = strlen(ns->grandmaster);
	FUZZ_CHECK(gm == 0 || gm == 18);
	for (size_t i = 0; i < gm; i++) {
		char c = ns->grandmaster[i];
		FUZZ_CHECK(i == 6 || i == 11 ? c == '.' : (isdigit((unsigned char)c) || (c >= 'a' && c <= 'f')));
	}
}

/* A refused parse: -1, *out untouched, "fuzz.json:LINE:COLUMN: what". */
static void check_refusal(int rc, const conffile *out, const conffile *sentinel, const char *err,
			  size_t err_len, const char *text, size_t len)
{
	FUZZ_CHECK(rc == -1 && out == sentinel);
	FUZZ_CHECK(fuzz_terminated(err, err_len) && one_line(err));
	if (len > CONFFILE_MAX_BYTES) {
		FUZZ_CHECK(strncmp(err, SOURCE ": ", sizeof SOURCE + 1) == 0);
		return;
	}
	int line = 0, col = 0, n = 0;
	FUZZ_CHECK(sscanf(err, SOURCE ":%d:%d: %n", &line, &col, &n) == 2 && n > 0 && err[n] != '\0');
	size_t lines = 1;
	for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p++) {
		lines++;
	}
	FUZZ_CHECK(line >= 1 && (size_t)line <= lines);
	FUZZ_CHECK(col >= 1 && (size_t)col <= len + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	const char *text = whole.part[0].p;
	size_t len = whole.part[0].len;
	static char sentinel_byte;
	conffile *const sentinel = (conffile *)(void *)&sentinel_byte;
	conffile *cf = sentinel;
	char err[1024], err2[1024];

	memset(err, 0, sizeof err);
	int rc = conffile_parse(text, len, SOURCE, &cf, err, sizeof err);

	/* the same text, the same answer; a tiny buffer is cut, not overrun */
	conffile *again = sentinel;
	memset(err2, 0, sizeof err2);
	int rc2 = conffile_parse(text, len, SOURCE, &again, err2, sizeof err2);
	FUZZ_CHECK(rc2 == rc);
	char *small = malloc(8); /* exact size: ASan sees a write past it */
	FUZZ_CHECK(small != NULL);
	conffile *tiny = sentinel;
	int rc3 = conffile_parse(text, len, SOURCE, &tiny, small, 8);
	FUZZ_CHECK(rc3 == rc);

	if (rc != 0) {
		check_refusal(rc, cf, sentinel, err, sizeof err, text, len);
		FUZZ_CHECK(again == sentinel && strcmp(err, err2) == 0);
		FUZZ_CHECK(tiny == sentinel && fuzz_terminated(small, 8) && strncmp(small, err, strlen(small)) == 0);
		cf = NULL;
	} else {
		FUZZ_CHECK(cf != NULL && cf != sentinel && again != NULL && again != sentinel);
		FUZZ_CHECK(tiny != NULL && tiny != sentinel);
		conffile_free(again);
		conffile_free(tiny);
		size_t groups = conffile_group_count(cf);
		FUZZ_CHECK(groups <= len / 2); /* each group is at least "{}" */
		for (size_t i = 0; i < groups; i++) {
			const char *name = conffile_group_name(cf, i);
			FUZZ_CHECK(name != NULL && name[0] != '\0' && fuzz_utf8_valid(name, strlen(name)));
		}
		FUZZ_CHECK(conffile_group_name(cf, groups) == NULL);
	}
	free(small);

	/* the host names asked about: the first line, and fixed ones */
	const char *nl = memchr(text, '\n', len);
	char *first = fuzz_strndup(text, nl ? (size_t)(nl - text) : len);
	const char *hosts[] = {first, "gpu001", "node-1.example", "login1", ""};
	node_settings ns, ns2, unmatched, builtin;
	bool have_unmatched = false;
	node_settings_init(&builtin);
	for (size_t h = 0; h < sizeof hosts / sizeof hosts[0]; h++) {
		int g = conffile_resolve(cf, hosts[h], &ns);
		FUZZ_CHECK(g >= -1 && (size_t)(g + 1) <= conffile_group_count(cf));
		check_settings(&ns);
		if (cf == NULL) {
			FUZZ_CHECK(g == -1 && same_settings(&ns, &builtin));
		}
		if (g == -1) {
			/* defaults alone: the same for every node no group names */
			if (have_unmatched) {
				FUZZ_CHECK(same_settings(&ns, &unmatched));
			}
			unmatched = ns;
			have_unmatched = true;
		}
		/* names are matched case-insensitively */
		char *upper = fuzz_strndup(hosts[h], strlen(hosts[h]));
		for (char *p = upper; *p; p++) {
			*p = (char)toupper((unsigned char)*p);
		}
		FUZZ_CHECK(conffile_resolve(cf, upper, &ns2) == g && same_settings(&ns, &ns2));
		free(upper);
	}
	FUZZ_CHECK(conffile_resolve(NULL, first, &ns) == -1 && same_settings(&ns, &builtin));
	FUZZ_CHECK(conffile_group_count(NULL) == 0 && conffile_group_name(NULL, 0) == NULL);
	free(first);
	conffile_free(cf);
	conffile_free(NULL);
	fuzz_parts_free(&whole);
	return 0;
}

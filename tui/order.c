/* order.c - filter, then sort with precomputed keys. */
#include <config.h>

#include "order.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "xalloc.h"

typedef struct {
	column_id column;
	int direction; /* +1 the column's natural direction, -1 reversed */
	int num_sign;  /* the same for numeric keys, which may sort biggest first */
	const size_t *host_rank;
} order_spec;

/* What a comparison reads, 32 bytes per kept node in one array; the sort
 * moves 4-byte positions into it (glibc's qsort has a fast path for those),
 * not the entries. */
typedef struct {
	double num;        /* numeric key, NAN = unknown */
	double abs_offset; /* the default order's tie-break */
	const char *str;   /* text key; NULL for a numeric one */
	uint32_t index;    /* into the keys */
	int32_t rank;      /* status, worst first */
} entry;

typedef struct {
	const order_spec *spec;
	const entry *e;
} sort_ctx;

/* Host names in version order ("gpu9" before "gpu10"), by their rank. */
static int cmp_host(const entry *x, const entry *y, const order_spec *s)
{
	const size_t *r = s->host_rank;
	return r[x->index] < r[y->index] ? -1 : r[x->index] > r[y->index];
}

/* Text keys: most are equal (one source for the whole fleet), and strcmp
 * says so far cheaper than strverscmp. */
static int cmp_text(const char *a, const char *b)
{
	return strcmp(a, b) == 0 ? 0 : strverscmp(a, b);
}

/* NAN after everything else, in either direction. */
static int cmp_num(double a, double b, int sign)
{
	if (isnan(a) || isnan(b)) {
		return isnan(a) - isnan(b);
	}
	return a < b ? -sign : a > b ? sign : 0;
}

static int cmp_default(const entry *x, const entry *y, int direction, const order_spec *s)
{
	int d = (x->rank - y->rank) * direction;
	if (d) {
		return d;
	}
	d = cmp_num(x->abs_offset, y->abs_offset, -direction);
	if (d) {
		return d;
	}
	return cmp_host(x, y, s);
}

static int cmp_entries(const void *a, const void *b, void *ctx)
{
	const sort_ctx *c = ctx;
	const entry *x = &c->e[*(const uint32_t *)a], *y = &c->e[*(const uint32_t *)b];
	const order_spec *s = c->spec;
	int d = 0;

	if (s->column == COL_STATUS) {
		d = cmp_default(x, y, s->direction, s);
	} else if (s->column == COL_NODE) {
		d = cmp_host(x, y, s) * s->direction; /* the rank is the key */
	} else if (!x->str || !y->str) {
		/* a text key against a number: the text one is unknown */
		double xn = x->str ? NAN : x->num, yn = y->str ? NAN : y->num;
		d = cmp_num(xn, yn, s->num_sign);
	} else {
		bool xe = x->str[0] == '\0', ye = y->str[0] == '\0';
		if (xe || ye) {
			d = xe - ye;
		} else {
			d = cmp_text(x->str, y->str) * s->direction;
		}
	}
	if (!d && s->column != COL_STATUS) {
		d = cmp_default(x, y, 1, s);
	}
	if (!d) {
		d = x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
	}
	return d;
}

static int cmp_rank_host(const void *a, const void *b, void *ctx)
{
	const node *nodes = ctx;
	return strverscmp(nodes[*(const size_t *)a].host, nodes[*(const size_t *)b].host);
}

void order_rank_hosts(const node *nodes, size_t n, size_t *rank)
{
	size_t *by_name = xmalloc((n ? n : 1) * sizeof *by_name);
	for (size_t i = 0; i < n; i++) {
		by_name[i] = i;
	}
	qsort_r(by_name, n, sizeof *by_name, cmp_rank_host, (void *)nodes);
	for (size_t r = 0; r < n; r++) {
		rank[by_name[r]] = r;
	}
	free(by_name);
}

void order_key_of(const node *nd, column_id column, const node_filter *f, order_key *out)
{
	out->match = !f || filter_match(f, nd);
	out->rank = columns_status_rank(cluster_node_status(nd));
	out->abs_offset = columns_abs_offset(nd);
	out->connecting = !nd->has_observation && nd->error[0] == '\0';
	out->host_width = (int)strnlen(nd->host, sizeof nd->host);
	out->data_mask = columns_data_mask(nd);
	out->num = NAN;
	out->text = false;
	out->str[0] = '\0';
	if (column == COL_STATUS || column == COL_NODE) {
		return; /* compared by rank and host rank (cmp_entries) */
	}
	sort_key k;
	/* the age as of time 0: the same order as at any one time */
	columns_sort_key(nd, column, 0, &k);
	if (k.numeric) {
		out->num = k.num;
	} else {
		out->text = true;
		snprintf(out->str, sizeof out->str, "%s", k.str);
	}
}

size_t order_sort_keys(const order_key *keys, size_t n, const size_t *host_rank, column_id column, bool reverse,
		       size_t *out)
{
	int direction = reverse ? -1 : 1;
	order_spec spec = {column, direction, columns_info(column)->descending ? -direction : direction,
			   host_rank};
	size_t count = 0;

	if (n == 0) {
		return 0;
	}
	entry *e = xmalloc(n * sizeof *e);
	uint32_t *pos = xmalloc(n * sizeof *pos);
	for (size_t i = 0; i < n; i++) {
		const order_key *k = &keys[i];
		if (!k->match) {
			continue;
		}
		e[count] = (entry){k->num, k->abs_offset, k->text ? k->str : NULL, (uint32_t)i, k->rank};
		pos[count] = (uint32_t)count;
		count++;
	}
	sort_ctx ctx = {&spec, e};
	qsort_r(pos, count, sizeof *pos, cmp_entries, &ctx);
	for (size_t i = 0; i < count; i++) {
		out[i] = e[pos[i]].index;
	}
	free(pos);
	free(e);
	return count;
}

size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out)
{
	size_t *rank = xmalloc((n ? n : 1) * sizeof *rank);
	order_rank_hosts(nodes, n, rank);
	size_t count = order_build_ranked(nodes, n, rank, f, column, reverse, now, out);
	free(rank);
	return count;
}

size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out)
{
	(void)now; /* the age sorts on the poll time */
	order_key *keys = xmalloc((n ? n : 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		order_key_of(&nodes[i], column, f, &keys[i]);
	}
	size_t count = order_sort_keys(keys, n, host_rank, column, reverse, out);
	free(keys);
	return count;
}

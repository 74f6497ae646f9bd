/* order.c - filter, then sort with precomputed keys. */
#include <config.h>

#include "order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "xalloc.h"

typedef struct {
	column_id column;
	int direction; /* +1 the column's natural direction, -1 reversed */
	int num_sign;  /* the same for numeric keys, which may sort biggest first */
	const size_t *host_rank; /* NULL: compare host names */
} order_spec;

typedef struct {
	size_t index;
	int rank;
	double abs_offset;
	const char *host;
	sort_key key;
	const order_spec *spec;
} entry;

/* Host names in version order ("gpu9" before "gpu10"): by their precomputed
 * rank when there is one, which saves strverscmp in most comparisons. */
static int cmp_host(const entry *x, const entry *y)
{
	const size_t *r = x->spec->host_rank;
	if (r) {
		return r[x->index] < r[y->index] ? -1 : r[x->index] > r[y->index];
	}
	return strverscmp(x->host, y->host);
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

static int cmp_default(const entry *x, const entry *y, int direction)
{
	int d = (x->rank - y->rank) * direction;
	if (d) {
		return d;
	}
	d = cmp_num(x->abs_offset, y->abs_offset, -direction);
	if (d) {
		return d;
	}
	return cmp_host(x, y);
}

static int cmp_entries(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	const order_spec *s = x->spec;
	int d = 0;

	if (s->column == COL_STATUS) {
		d = cmp_default(x, y, s->direction);
	} else if (s->column == COL_NODE && s->host_rank) {
		d = cmp_host(x, y) * s->direction; /* the rank is the key */
	} else if (x->key.numeric || y->key.numeric) {
		/* a text key against a number: the text one is unknown */
		double xn = x->key.numeric ? x->key.num : NAN, yn = y->key.numeric ? y->key.num : NAN;
		d = cmp_num(xn, yn, s->num_sign);
	} else {
		bool xe = x->key.str[0] == '\0', ye = y->key.str[0] == '\0';
		if (xe || ye) {
			d = xe - ye;
		} else {
			d = cmp_text(x->key.str, y->key.str) * s->direction;
		}
	}
	if (!d && s->column != COL_STATUS) {
		d = cmp_default(x, y, 1);
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

size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out)
{
	return order_build_ranked(nodes, n, NULL, f, column, reverse, now, out);
}

size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out)
{
	int direction = reverse ? -1 : 1;
	order_spec spec = {column, direction, columns_info(column)->descending ? -direction : direction,
			   host_rank};
	entry *e;
	size_t count = 0;

	if (n == 0) {
		return 0;
	}
	e = xmalloc(n * sizeof *e);
	for (size_t i = 0; i < n; i++) {
		const node *nd = &nodes[i];
		if (f && !filter_match(f, nd)) {
			continue;
		}
		entry *en = &e[count++];
		en->index = i;
		en->rank = node_status_rank(cluster_node_status(nd));
		en->abs_offset = columns_abs_offset(nd);
		en->host = nd->host;
		en->spec = &spec;
		if (column == COL_STATUS || (column == COL_NODE && host_rank)) {
			/* compared without a key (cmp_entries) */
			en->key.numeric = true;
			en->key.num = NAN;
			en->key.str[0] = '\0';
		} else {
			columns_sort_key(nd, column, now, &en->key);
		}
	}
	qsort(e, count, sizeof *e, cmp_entries);
	for (size_t i = 0; i < count; i++) {
		out[i] = e[i].index;
	}
	free(e);
	return count;
}

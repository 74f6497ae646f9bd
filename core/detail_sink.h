/* detail_sink.h - how a collector writes its drill-down section without
 * knowing the screen (ncdu's output struct of function pointers is the
 * model).  The dashboard implements it (tui/detail_doc.c); a collector
 * calls it from its descriptor's detail function (collector.h).
 *
 * Text may hold remote bytes: the sink cleans everything it is given for
 * the terminal (and spells µ as u where the terminal is not UTF-8), so a
 * collector passes what it has, formatted with core/units.h. */
#ifndef SYNCTOP_DETAIL_SINK_H
#define SYNCTOP_DETAIL_SINK_H

#include <stdbool.h>

typedef enum {
	DETAIL_PLAIN = 0,
	DETAIL_DIM,  /* not current, not applicable */
	DETAIL_GOOD, /* what is working as it should */
	DETAIL_WARN,
	DETAIL_CRIT,
} detail_tone;

/* A table column: its heading, and whether it holds numbers (aligned
 * right). */
typedef struct {
	const char *title;
	bool right;
} detail_column;

#define DETAIL_TABLE_MAX_COLUMNS 12

typedef struct {
	void *ctx;
	/* "Key    value" on one line, the value in the tone's role. */
	void (*kv)(void *ctx, const char *key, const char *value, detail_tone tone);
	/* A paragraph, wrapped to the screen. */
	void (*text)(void *ctx, const char *text, detail_tone tone);
	/* A further section (the first is headed by the collector's
	 * detail_title). */
	void (*section)(void *ctx, const char *title);
	/* A table sized to its contents: begin with its columns (at most
	 * DETAIL_TABLE_MAX_COLUMNS), then each row's cells in column order,
	 * then end, which draws it. */
	void (*table_begin)(void *ctx, int n_columns, const detail_column *columns);
	void (*table_row)(void *ctx);
	void (*table_cell)(void *ctx, const char *text, detail_tone tone);
	void (*table_end)(void *ctx);
	/* The tone the node's findings give a value: DETAIL_CRIT or DETAIL_WARN
	 * when one of the codes (NULL-ended) is among them, else DETAIL_PLAIN. */
	detail_tone (*finding_tone)(void *ctx, const char *const *codes);
} detail_sink;

#endif

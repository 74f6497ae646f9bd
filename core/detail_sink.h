/* detail_sink.h - how a collector writes its drill-down section without
 * knowing the screen (ncdu's output struct of function pointers is the
 * model).  The dashboard implements it (tui/detail_doc.c); a collector
 * calls it from its descriptor's detail function (collector.h).
 *
 * Text may hold remote bytes: the sink cleans everything it is given for
 * the terminal, so a collector passes what it has. */
#ifndef SYNCTOP_DETAIL_SINK_H
#define SYNCTOP_DETAIL_SINK_H

typedef enum {
	DETAIL_PLAIN = 0,
	DETAIL_DIM,  /* not current, not applicable */
	DETAIL_GOOD, /* what is working as it should */
	DETAIL_WARN,
	DETAIL_CRIT,
} detail_tone;

typedef struct {
	void *ctx;
	/* "Key    value" on one line, the value in the tone's role. */
	void (*kv)(void *ctx, const char *key, const char *value, detail_tone tone);
	/* A paragraph, wrapped to the screen. */
	void (*text)(void *ctx, const char *text, detail_tone tone);
} detail_sink;

#endif

/* help.h - the help overlay (`?`): every key, the mouse, and what the
 * columns and cell marks mean. */
#ifndef SYNCTOP_HELP_H
#define SYNCTOP_HELP_H

#include <stdbool.h>

#include "doc.h"
#include "handler.h"
#include "tui.h"

typedef struct {
	bool open;
	long top;     /* first help line in the box */
	long lines;   /* of the help text (help_prepare) */
	int page;     /* lines the box shows (help_prepare) */
} help_state;

/* The help text (pure; also what the tests check lists every key). */
void help_build(doc *d, bool utf8);

/* Opens the overlay at its top. */
void help_open(help_state *h);

/* Measures the box for a lines x cols screen and keeps the scroll position
 * inside the text. */
void help_prepare(help_state *h, int lines, int cols);

/* A box over the middle of the screen (lines x cols).  Changes nothing. */
void help_draw(const tui *t, int lines, int cols);

/* Scroll keys scroll, any other key closes (HR_BACK).  Always handled. */
handler_result help_key(help_state *h, int key);

/* Wheel: +1 down, -1 up. */
handler_result help_mouse(help_state *h, int wheel);

#endif
